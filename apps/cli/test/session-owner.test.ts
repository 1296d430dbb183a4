import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';

// Issue 12, defect 9: a session belongs to its user. Every command that reads or writes a session by id checks the
// owner and names the flag that reaches the session; nothing of the session changes.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[], user?: string) =>
  birdie(args, { env: { ...box.env, ...(user ? { USER: user } : {}) }, cwd: box.cwd });

describe('a session of another user', { timeout: 60_000 }, () => {
  it('is refused by delete, repair, show, logs, run and tool with exit 2 naming --user; --user reaches it', async () => {
    const created = await cli(['run', '--json', '--skills-dir', TEST_SKILLS, 'count these words'], 'alice');
    expect(created.code).toBe(0);
    const id = String(JSON.parse(created.stdout.split('\n')[0]!).id);
    const refusal = `birdie: session "${id}" belongs to user alice; pass --user alice\n`;

    const attempts = [
      ['sessions', 'delete', id],
      ['sessions', 'repair', id],
      ['sessions', 'show', id],
      ['sessions', 'show', id, '--json'],
      ['logs', '--session', id],
      ['run', '--session-id', id, 'count again'],
      ['tool', 'count_words', '--session-id', id, '--skills-dir', TEST_SKILLS, '--args', '{"text":"a b"}'],
    ];
    const results = await Promise.all(attempts.map((args) => cli(args)));
    for (const [i, result] of results.entries()) {
      // With --json the refusal is also one JSON object on stdout (every --json command's failure, apps/cli README).
      const json = attempts[i]!.includes('--json');
      expect({ args: attempts[i], ...result }).toEqual({
        args: attempts[i],
        code: 2,
        signal: null,
        stdout: json
          ? `${JSON.stringify({ ok: false, error: { code: 'usage', message: refusal.slice('birdie: '.length, -1) } })}\n`
          : '',
        stderr: refusal,
      });
    }

    // Another name given with --user is refused the same way.
    expect((await cli(['sessions', 'delete', id, '--user', 'bob'])).stderr).toBe(
      `birdie: session "${id}" belongs to user alice; pass --user alice\n`,
    );

    // Nothing was deleted or added: alice still sees her one turn, and --user reaches it from tester's shell.
    const shown = await cli(['sessions', 'show', id, '--user', 'alice', '--json']);
    expect(shown.code).toBe(0);
    expect(
      shown.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).content),
    ).toEqual(['count these words', '', '3\n', 'There are 3 words.']);
    const text = await cli(['sessions', 'show', id, '--user', 'alice']);
    expect(text.stdout).toContain(`session ${id} · user alice · 1 turn`);
    expect((await cli(['sessions', 'list', '--json'])).stdout).toBe('');
    const logs = await cli(['logs', '--session', id, '--user', 'alice', '--json']);
    expect(
      logs.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).status),
    ).toEqual(['ok']);

    const deleted = await cli(['sessions', 'delete', id, '--user', 'alice']);
    expect(deleted).toMatchObject({ code: 0, stderr: '' });
    expect(deleted.stdout).toContain(`Deleted session ${id}`);
  });
});
