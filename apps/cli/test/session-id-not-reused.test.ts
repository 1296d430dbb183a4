import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';

// Reported: `birdie run one; birdie run two; birdie sessions delete <day>_2; birdie run three` gave the new session the
// deleted id `<day>_2` again, so an id kept in a script, or a task's origin session, named another conversation. A
// deleted session's id is never handed out again.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) =>
  birdie(args, { env: { ...box.env, ...scripted('demo.json') }, cwd: box.cwd, timeoutMs: 60_000 });
const run = async (prompt: string) => {
  const result = await cli(['run', prompt]);
  expect(result.code, result.stderr).toBe(0);
  return /session (\S+) ·/.exec(result.stderr)![1]!;
};

describe('session ids after a delete', { timeout: 90_000 }, () => {
  it('the newest session deleted, the next one gets a new id, not the deleted one', async () => {
    const first = await run('one');
    const second = await run('two');
    expect(second).not.toBe(first);
    expect((await cli(['sessions', 'delete', second])).code).toBe(0);
    const third = await run('three');
    expect(third).not.toBe(second);
    expect(third).not.toBe(first);
    const shown = await cli(['sessions', 'show', second]);
    expect(shown.code).toBe(2);
  });
});
