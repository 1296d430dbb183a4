import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// Reported by a daily user: `birdie run -c "again"` said `unknown option "-c". Did you mean "--config"?`: the REPL's
// -c (continue the session used last) did not exist for `run`, which could go on only with an id the user looked up.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('repl.json'));
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => runCli(args, { env: box.env, cwd: box.cwd });
const sessionOf = (stderr: string) => /session (\S+) ·/.exec(stderr)?.[1];

describe('birdie run -c', () => {
  it('continues the session used last, as the REPL does', async () => {
    const first = await cli(['run', 'one question']);
    expect(first.code, first.stderr).toBe(0);
    const second = await cli(['run', 'another question']);
    const older = sessionOf(first.stderr)!;
    expect(sessionOf(second.stderr)).not.toBe(older);
    // Going back to the older one makes it the one used last.
    expect((await cli(['run', '--session-id', older, 'back to it'])).code).toBe(0);
    for (const flag of ['-c', '--continue']) {
      const again = await cli(['run', flag, 'and again']);
      expect(again.code, again.stderr).toBe(0);
      expect(sessionOf(again.stderr)).toBe(older);
    }
  });

  // Reported: `birdie sessions list` was ordered by creation while its UPDATED column shows the last use, so the
  // session `-c` continues was not at the top.
  it('sessions list shows the session used last at the top, the one -c continues', async () => {
    const first = sessionOf((await cli(['run', 'one question'])).stderr)!;
    const second = sessionOf((await cli(['run', 'another question'])).stderr)!;
    expect((await cli(['run', '--session-id', first, 'back to it'])).code).toBe(0);
    const list = await cli(['sessions', 'list']);
    expect(list.code, list.stderr).toBe(0);
    const rows = list.stdout.split('\n').filter((line) => /^\d{4}-/.test(line));
    expect(rows.map((line) => line.split(/\s+/)[0])).toEqual([first, second]);
    const json = await cli(['sessions', 'list', '--json']);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual([first, second]);
  });

  // Reported: after `birdie run --user alice`, the hint said `continue with --session-id ID`, which then failed:
  // the session belongs to alice, and without --user the default user is looked up.
  it("the hint after a run as another user names --user too, and the hint's flags continue the session", async () => {
    const first = await cli(['run', '--user', 'alice', 'one question']);
    expect(first.code, first.stderr).toBe(0);
    const id = sessionOf(first.stderr)!;
    expect(first.stderr).toContain(`(continue with --user alice --session-id ${id})`);
    const again = await cli(['run', '--user', 'alice', '--session-id', id, 'again']);
    expect(again.code, again.stderr).toBe(0);
    // The default user's hint stays as short as before.
    const mine = await cli(['run', 'mine']);
    expect(mine.stderr).toContain(`(continue with --session-id ${sessionOf(mine.stderr)!})`);
  });

  it('with no session yet, or with --session-id too, is a usage error saying why', async () => {
    const none = await cli(['run', '-c', 'hello']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no session to continue yet');
    const both = await cli(['run', '-c', '--session-id', '2026-01-01_1', 'hello']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--continue or --session-id');
  });
});
