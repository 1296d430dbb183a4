import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
let terminal: Terminal | undefined;
let skills: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  box = await sandbox();
  skills = join(box.cwd, 'skills');
  // A server that cannot start: what it says and how it ends are the cause, not the SDK's "Connection closed".
  await mkdir(join(skills, 'broken-server'), { recursive: true });
  await writeFile(
    join(skills, 'broken-server', 'SKILL.md'),
    '---\nname: broken-server\ndescription: An MCP server that exits at start\nenabled_by_default: true\nmcp_server:\n  command: bash\n  args: [-c, "echo \'config file missing: /etc/demo.toml\' >&2; exit 7"]\n---\n\nBroken.\n',
  );
  const script = join(box.cwd, 'script.json');
  await writeFile(script, JSON.stringify({ replies: [{ match: 'hello', text: 'Answered without it.' }] }));
  env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
});
afterEach(async () => {
  terminal?.kill();
  await box.cleanup();
});

describe('an MCP server that fails to start says why', { timeout: 60_000 }, () => {
  it('the REPL shows its exit code and last stderr line, and the turn is answered', async () => {
    const t = new Terminal(['--skills-dir', skills], { env, cwd: box.cwd });
    terminal = t;
    await t.expect('/help for commands');
    await t.submit('hello');
    await t.expect('Answered without it.');
    expect(t.text).toContain('"broken-server" exited during start-up with exit code 7');
    expect(t.text).toContain('config file missing: /etc/demo.toml');
    expect(t.text).not.toContain('Connection closed');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('birdie run says the same on stderr and still answers', async () => {
    const result = await runCli(['run', 'hello', '--skills-dir', skills], { env, cwd: box.cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Answered without it.');
    expect(result.stderr).toContain('"broken-server" exited during start-up with exit code 7');
    expect(result.stderr).toContain('config file missing: /etc/demo.toml');
  });
});
