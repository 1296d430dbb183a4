import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Reported by an operator: `birdie tokens create --user=@` said `expected 1-64 of [A-Za-z0-9._@-]`, a rule "@" meets;
// the rule also wants a letter or digit first and no "..". And an empty `--name` exited 1 where every other usage
// error of the command exits 2.

let box: Sandbox;

beforeAll(async () => {
  box = await sandbox();
});

afterAll(async () => {
  await box?.cleanup();
});

const run = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });

describe('birdie tokens create: what a user id and a name may be', { timeout: 120_000 }, () => {
  it('a user id refused says the whole rule it broke, exit 2', async () => {
    for (const user of ['@', '-x', '...', 'a..b']) {
      const made = await run(['tokens', 'create', `--user=${user}`]);
      expect(made.code, user).toBe(2);
      expect(made.stderr, user).toContain(`invalid user id "${user}"`);
      expect(made.stderr, user).toContain('starting with a letter or digit');
      expect(made.stderr, user).toContain('no ".."');
    }
  });

  it('an empty token name is a usage error like the others, exit 2', async () => {
    const made = await run(['tokens', 'create', '--user', 'dave', '--name', '']);
    expect(made.code, made.stderr).toBe(2);
    expect(made.stderr).toContain('a token name is 1-100 characters');
  });
});
