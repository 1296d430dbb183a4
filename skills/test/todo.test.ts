import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Entrypoint, isEntrypointError } from '@birdie/entrypoints';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as todo from '../todo/tools.mjs';
import { toolEntrypoint } from './helpers.js';

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;

let home: TempDir;
let create: Entrypoint;
let complete: Entrypoint;
let show: Entrypoint;
const saved = { ...process.env };

/**
 * Runs a todo tool for one session, through its real entrypoint. The session travels in the call's `env` (what the
 * runtime passes) and, because the node: scheme calls tools in-process, in the process environment too (the fallback
 * for hosts that run one session per process).
 */
async function inSession(
  session: string,
  entrypoint: Entrypoint,
  args: Record<string, unknown>,
): Promise<string> {
  process.env.BIRDIE_SESSION_ID = session;
  return (await entrypoint.run(args, { env: { BIRDIE_SESSION_ID: session }, timeoutMs: 10_000 })).output;
}

beforeEach(async () => {
  home = await makeTempDir('birdie-todo-');
  process.env.BIRDIE_HOME = home.path;
  delete process.env.BIRDIE_SESSION_ID;
  delete process.env.BIRDIE_SESSION_DIR;
  create = await toolEntrypoint('todo', 'todo_create_plan');
  complete = await toolEntrypoint('todo', 'todo_complete_step');
  show = await toolEntrypoint('todo', 'todo_show_plan');
});

afterEach(async () => {
  for (const key of ['BIRDIE_HOME', 'BIRDIE_SESSION_ID', 'BIRDIE_SESSION_DIR']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  await home.cleanup();
});

describe('todo: one plan per session', () => {
  it('keeps two sessions apart through create, complete and show', async () => {
    expect(
      await inSession('2026-11-21_1', create, {
        steps: ['Read the config', 'Fix the typo', 'Run the tests'],
      }),
    ).toBe(
      [
        'Plan: 0 of 3 steps done',
        '[ ] 1. Read the config',
        '[ ] 2. Fix the typo',
        '[ ] 3. Run the tests',
        'Next: step 1 — Read the config',
      ].join('\n'),
    );
    await inSession('2026-11-21_2', create, { steps: ['Find the weather in Graz'] });

    expect(await inSession('2026-11-21_1', complete, { step_number: 1, summary: 'port is 8080' })).toBe(
      [
        'Plan: 1 of 3 steps done',
        '[x] 1. Read the config — port is 8080',
        '[ ] 2. Fix the typo',
        '[ ] 3. Run the tests',
        'Next: step 2 — Fix the typo',
      ].join('\n'),
    );
    expect(await inSession('2026-11-21_2', show, {})).toBe(
      [
        'Plan: 0 of 1 steps done',
        '[ ] 1. Find the weather in Graz',
        'Next: step 1 — Find the weather in Graz',
      ].join('\n'),
    );
    expect(await inSession('2026-11-21_2', complete, { step_number: 1, summary: '3 °C, cloudy' })).toMatch(
      /All steps are done: give the final answer now\.$/,
    );
    expect(await inSession('2026-11-21_1', show, {})).toMatch(/^Plan: 1 of 3 steps done/);
    expect(await inSession('2026-11-21_3', show, {})).toBe('There is no plan in this session yet.');

    const stored = JSON.parse(
      await readFile(join(home.path, 'sessions', '2026-11-21_1', 'todo.json'), 'utf8'),
    );
    expect(stored.steps).toEqual([
      { text: 'Read the config', done: true, summary: 'port is 8080' },
      { text: 'Fix the typo', done: false },
      { text: 'Run the tests', done: false },
    ]);
  });

  it('replaces a plan and says how far the old one got', async () => {
    await inSession('s1', create, { steps: ['a', 'b'] });
    await inSession('s1', complete, { step_number: 1, summary: 'done a' });
    expect(await inSession('s1', create, { steps: ['c'] })).toMatch(
      /^Replaced the previous plan \(1 of 2 steps were done\)\.\nPlan: 0 of 1 steps done/,
    );
  });

  it('records parallel completions of one plan without losing any', async () => {
    await inSession('s1', create, { steps: ['a', 'b', 'c', 'd', 'e', 'f'] });
    await Promise.all(
      [1, 2, 3, 4, 5, 6].map((step) => inSession('s1', complete, { step_number: step, summary: `#${step}` })),
    );
    expect(await inSession('s1', show, {})).toMatch(/^Plan: 6 of 6 steps done/);
  });

  it('explains bad calls in words the model can act on', async () => {
    const message = async (call: Promise<unknown>) => {
      const error = await call.catch((caught: unknown) => caught);
      if (!isEntrypointError(error)) throw new Error('expected an EntrypointError');
      return error.message;
    };
    expect(await message(inSession('s1', complete, { step_number: 1, summary: 'x' }))).toMatch(
      /no plan in this session yet; call todo_create_plan first/,
    );
    await inSession('s1', create, { steps: ['only step'] });
    expect(await message(inSession('s1', complete, { step_number: 4, summary: 'x' }))).toMatch(
      /Step 4 does not exist: the plan has steps 1 to 1/,
    );
    expect(await message(inSession('s1', create, { steps: [] }))).toMatch(/non-empty list/);
    expect(await message(inSession('s1', create, { steps: ['fine', '   '] }))).toMatch(/Step 2 is empty/);
    expect(await message(inSession('../../etc', show, {}))).toMatch(/is not valid/);
  });

  it('refuses to guess a session when none is given', async () => {
    const error = await show.run({}, { timeoutMs: 10_000 }).catch((caught: unknown) => caught);
    expect(isEntrypointError(error) && error.message).toMatch(
      /no session was given: the runtime passes it as BIRDIE_SESSION_ID/,
    );
  });
});

describe('todo: the call context', () => {
  it('prefers the session in the call context over the process environment', async () => {
    process.env.BIRDIE_SESSION_ID = 'process-session';
    await todo.create_plan({ steps: ['context step'] }, { env: { BIRDIE_SESSION_ID: 'context-session' } });
    expect(await todo.show_plan({}, { env: { BIRDIE_SESSION_ID: 'context-session' } })).toMatch(
      /context step/,
    );
    expect(await todo.show_plan({}, {})).toBe('There is no plan in this session yet.');
  });

  it('uses BIRDIE_SESSION_DIR as the plan folder when given', async () => {
    const dir = join(home.path, 'custom-session');
    await todo.create_plan({ steps: ['x'] }, { env: { BIRDIE_SESSION_DIR: dir } });
    expect(JSON.parse(await readFile(join(dir, 'todo.json'), 'utf8')).steps).toEqual([
      { text: 'x', done: false },
    ]);
    // A folder the tool had to create is private: plans may say what the user is working on.
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });
});
