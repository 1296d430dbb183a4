import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd });

describe("birdie: a negative number as a value or an argument gets birdie's own usage error", () => {
  it('--wait -1 and -n -1 are checked as the values they are', async () => {
    expect(await cli(['run', '--wait', '-1', 'x'])).toMatchObject({
      code: 2,
      stderr: 'birdie: --wait must be a number of seconds (0 or more), got "-1"\n',
    });
    expect(await cli(['logs', '-n', '-1'])).toMatchObject({
      code: 2,
      stderr: 'birdie: -n must be a whole number of 1 or more, got "-1"\n',
    });
  });

  it('-n=5 and -n=-1 are the value after "=", as --wait=5 is (the short form with "=")', async () => {
    expect(await cli(['logs', '-n=5'])).toMatchObject({ code: 0, stdout: 'No runs logged yet.\n' });
    expect(await cli(['logs', '-n=-1'])).toMatchObject({
      code: 2,
      stderr: 'birdie: -n must be a whole number of 1 or more, got "-1"\n',
    });
  });

  it('config set KEY -5 takes -5 as the value, and checks it', async () => {
    const file = join(box.home, 'config.json');
    expect(await cli(['config', 'set', 'context_window', '-5'])).toMatchObject({
      code: 2,
      stderr: `birdie: context_window "-5": settings.context_window must be at least 1000 tokens; ${file} is unchanged\n`,
    });
  });

  // Reported: `config set context_window 0x10000` saved 65536, `--wait 0x10` waited 16 s, `-n 0b11` listed 3: every
  // number a user types went through JavaScript's Number(), which reads hex, binary, octal and exponents.
  it('numbers are read as decimals only: 0x10, 0b11, 0o7 and 1e3 are refused, as any other non-number is', async () => {
    const file = join(box.home, 'config.json');
    for (const value of ['0x10000', '1e5', '0b11']) {
      const set = await cli(['config', 'set', 'context_window', value]);
      expect(set.code, value).toBe(2);
      expect(set.stderr).toBe(
        `birdie: context_window "${value}": settings.context_window must be a number of tokens; ${file} is unchanged\n`,
      );
    }
    expect((await cli(['config', 'set', 'context_window', '100000'])).code).toBe(0);
    expect(await cli(['run', '--wait', '0x10', 'x'])).toMatchObject({
      code: 2,
      stderr: 'birdie: --wait must be a number of seconds (0 or more), got "0x10"\n',
    });
    expect(await cli(['logs', '-n', '0b11'])).toMatchObject({
      code: 2,
      stderr: 'birdie: -n must be a whole number of 1 or more, got "0b11"\n',
    });
    expect(await cli(['logs', '-n', '1e1'])).toMatchObject({ code: 2 });
    expect(await cli(['tool', 'x', '--timeout', '0o7'])).toMatchObject({
      code: 2,
      stderr: 'birdie: --timeout must be a positive number of seconds, got "0o7"\n',
    });
    // A decimal fraction and a sign stay numbers, checked as before: the tool is looked up (and not found) only once
    // --timeout was read.
    expect(await cli(['logs', '-n', '+2'])).toMatchObject({ code: 0 });
    const fraction = await cli(['tool', 'x', '--timeout', ' 0.5 ']);
    expect(fraction.code).toBe(2);
    expect(fraction.stderr).not.toContain('--timeout');
  });

  it('an option without its value: says which value it needs, in words, before the hint', async () => {
    expect(await cli(['tool', 'x', '--args'])).toMatchObject({
      code: 2,
      stderr: 'birdie: --args needs a value (JSON). Run `birdie tool --help`.\n',
    });
    expect(await cli(['run', '--session-id'])).toMatchObject({
      code: 2,
      stderr: 'birdie: --session-id needs a value (ID). Run `birdie run --help`.\n',
    });
  });
});
