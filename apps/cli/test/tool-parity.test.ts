import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// One skill whose tools cover the outcomes a call can have: output, defaults, a schema violation, a failing command,
// a refused argument, output over the cap.
const SKILL = `---
name: parity
description: Tools for comparing birdie tool with the agent.
enabled_by_default: true
---

## Tools

### greet
description: Greet someone.
entrypoint: bash:printf 'hello %s, %s\\n' {name} {greeting}
schema:
  type: object
  properties:
    name:
      type: string
    greeting:
      type: string
      default: good morning
  required: [name]
  additionalProperties: false

### fail
description: Exit with an error.
entrypoint: bash:echo partial; echo broken >&2; exit 3
schema:
  type: object
  properties: {}

### show
description: Show a file.
entrypoint: bash:cat {path}
schema:
  type: object
  properties:
    path:
      type: string
  required: [path]

### flood
description: Print a lot.
entrypoint: bash:head -c 40000 /dev/zero | tr '\\\\0' x
schema:
  type: object
  properties: {}
`;

const CASES: Array<{ title: string; tool: string; args: Record<string, unknown> }> = [
  { title: 'output, with a schema default applied', tool: 'greet', args: { name: 'Ada' } },
  { title: 'a schema violation', tool: 'greet', args: { name: 7, extra: true } },
  { title: 'a failing command', tool: 'fail', args: {} },
  { title: 'an argument refused as an option', tool: 'show', args: { path: '--version' } },
  { title: 'output over the cap', tool: 'flood', args: {} },
];

let box: Sandbox;
let skills: string;
beforeAll(async () => {
  box = await sandbox();
  skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'parity'), { recursive: true });
  await writeFile(join(skills, 'parity', 'SKILL.md'), SKILL);
});
afterAll(async () => {
  await box.cleanup();
});

/** The text the model read for the call, from `birdie run --json` with a script that makes exactly that call. */
async function agentSees(tool: string, args: Record<string, unknown>) {
  const script = join(box.dir.path, `${tool}-${Object.keys(args).length}.json`);
  await writeFile(
    script,
    JSON.stringify({ replies: [{ tool_calls: [{ name: tool, args, id: 'c1' }] }, { text: 'done' }] }),
  );
  const env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
  const run = await runCli(['run', '--json', '--skills-dir', skills, 'go'], { env, cwd: box.cwd });
  const events = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; ok?: boolean; output?: string });
  const end = events.find((e) => e.type === 'tool-end');
  if (!end) throw new Error(`no tool-end in: ${run.stdout}${run.stderr}`);
  return { ok: Boolean(end.ok), text: String(end.output) };
}

/** The same call through `birdie tool`: stdout when it succeeds, stderr (exit 1 or 2) when it does not. */
async function toolSees(tool: string, args: Record<string, unknown>) {
  const run = await runCli(['tool', tool, '--skills-dir', skills, '--args', JSON.stringify(args)], {
    env: box.env,
    cwd: box.cwd,
  });
  return { code: run.code, stdout: run.stdout, stderr: run.stderr };
}

const withNewline = (text: string) => (text.endsWith('\n') || text === '' ? text : `${text}\n`);

describe('birdie tool and the agent run a call the same way', () => {
  it.each(CASES)('$title', async ({ tool, args }) => {
    const [agent, direct] = await Promise.all([agentSees(tool, args), toolSees(tool, args)]);
    if (agent.ok) {
      expect(direct).toMatchObject({ code: 0, stdout: withNewline(agent.text) });
    } else if (agent.text.startsWith('Invalid arguments')) {
      // A schema violation is the caller's mistake: a usage error (exit 2) with the text the model reads.
      expect(direct.code).toBe(2);
      expect(direct.stderr).toBe(`birdie: tool ${tool}: ${agent.text}\n`);
    } else {
      expect(direct).toMatchObject({ code: 1, stdout: '', stderr: withNewline(agent.text) });
    }
  });

  it('the table covers success, invalid arguments and failures, and the cap applies to both', async () => {
    const greet = await agentSees('greet', { name: 'Ada' });
    expect(greet).toEqual({ ok: true, text: 'hello Ada, good morning\n' });
    const flood = await agentSees('flood', {});
    expect(flood.text).toMatch(/\[truncated: 8000 more characters\]$/);
    const fail = await agentSees('fail', {});
    expect(fail.text).toMatch(/^Error \(non-zero-exit\): command exited with code 3/);
    const refused = await agentSees('show', { path: '--version' });
    expect(refused.text).toMatch(/^Error \(bad-argument\)/);
  });
});
