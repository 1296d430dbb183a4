import { describe, expect, it } from 'vitest';
import { scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

// Issue 30, defect 11: `/session delete` of the current session starts a new session and deletes the old one.
const STATUS_SESSION = /│ session: (\S+) │/;

const repl = useReplSandbox(scripted('demo.json'));

describe('/session delete in a real terminal', { timeout: 90_000 }, () => {
  it('deleting the current session moves to a new one and deletes the old one', async () => {
    const t = repl.start();
    await t.expect('/help for commands');
    await t.submit('hello there');
    const old = STATUS_SESSION.exec(await t.expect(STATUS_SESSION))![1]!;
    await t.submit(`/session delete ${old}`);
    const moved = await t.expect(/✓ deleted (\S+); new session (\S+)/);
    const [, deleted, fresh] = /✓ deleted (\S+); new session (\S+)/.exec(moved)!;
    expect(deleted).toBe(old);
    expect(fresh).not.toBe(old);
    expect(t.text).not.toContain('That is the current session');
    await t.submit('/session info');
    await t.expect(`session ${fresh} · user tester`);
    await t.submit('/exit');
    expect(await t.exited).toBe(0);
    const listed = await runCli(['sessions', 'list', '--json'], { env: repl.box.env, cwd: repl.box.cwd });
    expect(listed.stdout).not.toContain(old);
  });
});
