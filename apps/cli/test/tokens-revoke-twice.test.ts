import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Reported: revoking a token a second time said "no token ID. Run `birdie tokens list`", exit 2, as if the id were
// mistyped, although the token exists (listed by `birdie tokens list --revoked`). The token is revoked either way:
// now said so, with when, exit 0; an id no token ever had is still a usage error.

let box: Sandbox;

beforeAll(async () => {
  box = await sandbox();
});

afterAll(async () => {
  await box?.cleanup();
});

const run = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });

describe('birdie tokens revoke', { timeout: 120_000 }, () => {
  it('a token revoked twice: the second says it already was, and when; exit 0', async () => {
    const made = await run(['tokens', 'create', '--user', 'carol', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const { id } = JSON.parse(made.stdout) as { id: string };

    const first = await run(['tokens', 'revoke', id]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`token ${id} revoked`);

    const again = await run(['tokens', 'revoke', id]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      new RegExp(`token ${id} was already revoked on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d`),
    );
    expect(again.stderr).not.toContain('no token');
  });

  it('an id no token has is a usage error, exit 2', async () => {
    const made = await run(['tokens', 'create', '--user', 'carol', '--json']);
    const { id } = JSON.parse(made.stdout) as { id: string };
    const other = `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`;
    const unknown = await run(['tokens', 'revoke', other]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`no token ${other}`);
  });
});
