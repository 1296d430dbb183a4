import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
const STATUS_SESSION = /│ session: (\S+) │/;

const repl = useReplSandbox(scripted('mcp-sampling.json'));

async function everythingSkills(): Promise<string> {
  const skills = join(repl.box.dir.path, 'skills');
  await mkdir(join(skills, 'everything'), { recursive: true });
  await writeFile(
    join(skills, 'everything', 'SKILL.md'),
    `---\nname: everything\ndescription: The MCP reference server\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([everything])}\n---\n`,
  );
  return skills;
}

async function toolMessages(id: string): Promise<string[]> {
  const shown = await runCli(['sessions', 'show', id, '--json'], { env: repl.box.env, cwd: repl.box.cwd });
  expect(shown.code, shown.stderr).toBe(0);
  return shown.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { role: string; content: string })
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);
}

describe('an MCP server asks the model, in the REPL (compiled CLI, real terminal, server-everything)', {
  timeout: 90_000,
}, () => {
  it('shows the request, then the answer, each approved before it goes on', async () => {
    const t = repl.start(['--skills-dir', await everythingSkills()]);
    await t.expect('/help for commands');
    await t.submit('sample a haiku');
    const request = await t.expect('Send this to the model?');
    expect(request).toContain('MCP server everything asks the model (up to 100 tokens)');
    expect(request).toContain('system: You are a helpful test server.');
    expect(request).toContain('user: Resource trigger-sampling-request context: a haiku on birds');
    t.write('y');
    const answer = await t.expect('Send this answer to everything?');
    expect(answer).toMatch(/The model answered MCP server everything:\n│ +wings over water/);
    t.write('y');
    await t.expect('Sampled.');
    const id = STATUS_SESSION.exec(await t.expect(STATUS_SESSION))![1]!;
    await t.prompt();
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
    const [result] = await toolMessages(id);
    expect(result).toContain('wings over water');
  });

  it('a declined request never reaches the model', async () => {
    const t = repl.start(['--skills-dir', await everythingSkills()]);
    await t.expect('/help for commands');
    await t.submit('sample a haiku');
    await t.expect('Send this to the model?');
    t.write('n');
    await t.expect('Sampled.');
    const id = STATUS_SESSION.exec(await t.expect(STATUS_SESSION))![1]!;
    await t.prompt();
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
    const [result] = await toolMessages(id);
    expect(result).toContain('declined');
    expect(result).not.toContain('wings over water');
  });
});
