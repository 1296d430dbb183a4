import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BirdieProcess, birdie, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import {
  answers,
  jsonLines,
  type ShownMessage,
  STORE_SKILLS,
  script,
  sessionIdOf,
} from './helpers/sessions.js';

// Issue 21, defect 1: two `birdie run` on one session at once. The lease lets one turn in; the other is refused at
// once (exit 3, the holder named) or, with --wait, waits and then runs its whole turn after the first. Each turn's
// tool blocks until the test releases it, so the overlap is certain, not a matter of timing.

const REPETITIONS = 20;
const ISO = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';

let box: Sandbox;
let running: BirdieProcess[] = [];
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  for (const p of running) p.kill('SIGKILL');
  running = [];
  await box.cleanup();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first line of `file` once a tool has written it. */
async function firstLine(file: string): Promise<string> {
  for (let i = 0; i < 1200; i++) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.includes('\n')) return text.split('\n')[0]!;
    await pause(25);
  }
  throw new Error(`nothing in ${file} after 30 s`);
}

async function newSession(): Promise<string> {
  const env = await script(box.dir.path, 'first', [{ text: 'Hello.' }]);
  const first = await birdie(['run', '--json', 'hello'], { env: { ...box.env, ...env }, cwd: box.cwd });
  expect(first.code).toBe(0);
  return sessionIdOf(first.stdout);
}

interface Contender {
  token: string;
  process: BirdieProcess;
  release(): Promise<void>;
}

/** Starts one `birdie run --session-id` whose tool writes its token to `started`, then waits for its release file. */
async function contender(id: string, token: string, started: string, wait: string[]): Promise<Contender> {
  const release = join(box.dir.path, `release-${token}`);
  const env = await script(box.dir.path, token, [
    { tool_calls: [{ name: 'gated_step', args: { token, started, release } }] },
    { text: `answer ${token}` },
  ]);
  const process = startBirdie(
    ['run', '--json', '--session-id', id, '--skills-dir', STORE_SKILLS, ...wait, `prompt ${token}`],
    { env: { ...box.env, ...env }, cwd: box.cwd, timeoutMs: 60_000 },
  );
  running.push(process);
  return { token, process, release: () => writeFile(release, '') };
}

/** The four messages of a whole turn of `token`, in order, nothing between them. */
function expectWholeTurn(messages: ShownMessage[], token: string): void {
  const start = messages.findIndex((m) => m.role === 'human' && m.content === `prompt ${token}`);
  expect(start, `turn ${token} missing`).toBeGreaterThanOrEqual(0);
  const [human, call, result, answer] = messages.slice(start, start + 4);
  expect(human).toMatchObject({ role: 'human', content: `prompt ${token}` });
  expect(call).toMatchObject({ role: 'ai', tool_calls: [{ name: 'gated_step', args: { token } }] });
  expect(result).toMatchObject({
    role: 'tool',
    tool_call_id: call!.tool_calls![0]!.id,
    content: `result ${token}\n`,
    status: 'success',
  });
  expect(answer).toMatchObject({ role: 'ai', content: `answer ${token}` });
}

/** History, doctor and run log after the repetitions: every finished turn whole, nothing damaged. */
async function expectIntact(id: string, finished: string[], refused: string[]): Promise<void> {
  const env = { env: box.env, cwd: box.cwd };
  const shown = await birdie(['sessions', 'show', id, '--json'], env);
  expect(shown).toMatchObject({ code: 0, stderr: '' });
  const messages = jsonLines<ShownMessage>(shown.stdout);
  for (const token of finished) expectWholeTurn(messages, token);
  // In the order they ran (the holder before the one that waited).
  expect(messages.filter((m) => m.role === 'human').map((m) => m.content)).toEqual([
    'hello',
    ...finished.map((token) => `prompt ${token}`),
  ]);
  for (const token of refused)
    expect(
      messages.some((m) => m.content === `prompt ${token}`),
      `refused ${token} in history`,
    ).toBe(false);
  // hello + its answer, then four messages per finished turn: nothing lost, nothing doubled.
  expect(messages).toHaveLength(2 + 4 * finished.length);
  expect(answers(messages).size).toBe(finished.length);

  const doctor = await birdie(['doctor', '--json'], env);
  expect(doctor.code).toBe(0);
  expect(JSON.parse(doctor.stdout)).toMatchObject({ ok: true, integrity: ['ok'], damaged: [] });

  const logs = await birdie(['logs', '--session', id, '--json', '-n', '100'], env);
  const runs = jsonLines<{ status: string; toolCalls: { status: string }[] }>(logs.stdout);
  // A refused run never started: only the finished ones (and hello) are logged, each with its one tool call done.
  expect(runs.map((r) => r.status)).toEqual(Array(finished.length + 1).fill('ok'));
  expect(runs.flatMap((r) => r.toolCalls.map((t) => t.status))).toEqual(Array(finished.length).fill('ok'));
}

describe('two birdie run on one session at once', { timeout: 180_000 }, () => {
  it(`without --wait: one runs, the other is refused at once with exit 3 naming the holder (${REPETITIONS} times)`, async () => {
    const id = await newSession();
    const finished: string[] = [];
    const refused: string[] = [];
    for (let r = 0; r < REPETITIONS; r++) {
      const started = join(box.dir.path, `started-${r}`);
      const pair = await Promise.all(['a', 'b'].map((s) => contender(id, `refuse-${r}-${s}`, started, [])));
      const holderToken = await firstLine(started);
      const holder = pair.find((c) => c.token === holderToken)!;
      const other = pair.find((c) => c !== holder)!;

      const busy = await other.process.exited;
      expect(busy.code, busy.stderr).toBe(3);
      expect(busy.stderr).toMatch(
        new RegExp(
          `^birdie: session ${id} is in use by process ${holder.process.pid} on ${hostname()} since ${ISO} \\(wait for that process to finish; if it stopped without letting go, its lease expires at ${ISO}; or pass --wait SECONDS\\)\\n$`,
        ),
      );
      expect(jsonLines(busy.stdout).map((e) => e.type)).toEqual(['session', 'error', 'done', 'result']);

      await holder.release();
      const done = await holder.process.exited;
      expect(done.code, done.stderr).toBe(0);
      expect(jsonLines<{ type: string; status?: string }>(done.stdout).at(-1)).toEqual(
        expect.objectContaining({ type: 'result', status: 'ok' }),
      );
      // The refused run's tool never started.
      expect(await readFile(started, 'utf8')).toBe(`${holder.token}\n`);
      finished.push(holder.token);
      refused.push(other.token);
    }
    await expectIntact(id, finished, refused);
  });

  it(`with --wait: the second waits, says for whom, then runs its whole turn after the first (${REPETITIONS} times)`, async () => {
    const id = await newSession();
    const finished: string[] = [];
    for (let r = 0; r < REPETITIONS; r++) {
      const started = join(box.dir.path, `started-${r}`);
      const pair = await Promise.all(
        ['a', 'b'].map((s) => contender(id, `wait-${r}-${s}`, started, ['--wait', '60'])),
      );
      const holderToken = await firstLine(started);
      const holder = pair.find((c) => c.token === holderToken)!;
      const waiter = pair.find((c) => c !== holder)!;

      const line = `birdie: session ${id} is in use by process ${holder.process.pid} on ${hostname()} since ${ISO}; waiting up to 60 s \\(Ctrl\\+C stops\\)\\n`;
      await waiter.process.waitFor('stderr', new RegExp(line));
      // Waiting, not running: its tool has not started while the first one holds the session.
      expect(await readFile(started, 'utf8')).toBe(`${holder.token}\n`);

      await Promise.all([holder.release(), waiter.release()]);
      const [first, second] = await Promise.all([holder.process.exited, waiter.process.exited]);
      expect(first.code, first.stderr).toBe(0);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(new RegExp(`^${line}$`));
      expect(await readFile(started, 'utf8')).toBe(`${holder.token}\n${waiter.token}\n`);
      finished.push(holder.token, waiter.token);
    }
    await expectIntact(id, finished, []);
  });
});
