import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  // The project is not the home folder: there, `.agents/agents` would be the user's own `~/.agents/agents`.
  box.env.HOME = join(box.dir.path, 'user-home');
  await mkdir(box.env.HOME);
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

async function agentFile(dir: string, name: string, lines: string[]) {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}.md`);
  await writeFile(
    file,
    [
      '---',
      `name: ${name}`,
      `description: The ${name} agent`,
      ...lines,
      '---',
      '',
      `You are ${name}.`,
      '',
    ].join('\n'),
  );
  return file;
}

describe('birdie agents check: an agent that names itself', () => {
  it('in `subagents` or `handoffs` is a warning at the item, naming the agent and the field', async () => {
    const dir = join(box.cwd, 'team');
    await agentFile(dir, 'helper', []);
    await agentFile(dir, 'lead', ['subagents: [helper, lead]', 'handoffs: [Lead]']);
    const result = await cli(['agents', 'check', 'team']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'team/lead.md:4:21  warning  `subagents` names the agent itself (`lead`): a task it gives itself starts another copy of it, nested again each time until the subagent depth limit refuses it; name another agent, or drop the entry  registry:agent-names-itself',
      'team/lead.md:5:12  warning  `handoffs` names the agent itself (`Lead`): handing the conversation to itself changes nothing; name another agent, or drop the entry  registry:agent-names-itself',
      '',
      '2 agents loaded: 0 errors, 2 warnings, 0 info',
    ]);
  });

  it('is reported too when every loaded agents folder is checked (no DIR)', async () => {
    await agentFile(join(box.cwd, '.birdie', 'agents'), 'looper', ['handoffs: [looper]']);
    const result = await cli(['agents', 'check', '--agents-dir', '.birdie/agents']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '`handoffs` names the agent itself (`looper`): handing the conversation to itself changes nothing; name another agent, or drop the entry  registry:agent-names-itself',
    );
  });
});
