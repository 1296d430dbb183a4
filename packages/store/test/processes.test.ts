import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/index.js';
import { chatGraph, tempHome } from './helpers.js';

const worker = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));

beforeAll(async () => {
  // The workers are plain node processes running the built package, as the CLI does.
  if (!existsSync(new URL('../dist/index.js', import.meta.url))) throw new Error('run `pnpm build` first');
});

interface Worker {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  waitFor(predicate: (line: string) => boolean): Promise<string>;
}

function start(home: string, user: string, turns: string): Worker {
  const child = spawn(process.execPath, [worker, home, user, turns], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: [(line: string) => boolean, (line: string) => void][] = [];
  let buffer = '';
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  child.stdout!.on('data', (d) => {
    buffer += d;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (const w of [...waiters]) {
        if (w[0](line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w[1](line);
        }
      }
      nl = buffer.indexOf('\n');
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) console.error(stderr);
      resolve(code);
    }),
  );
  return {
    child,
    lines,
    exited,
    waitFor: (predicate) => {
      const found = lines.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push([predicate, resolve]));
    },
  };
}

const homes: ReturnType<typeof tempHome>[] = [];
afterEach(async () => {
  for (const h of homes.splice(0)) h.cleanup();
});

describe('several processes on one file', () => {
  it('two CLI processes write different sessions concurrently without a lock error', async () => {
    const home = tempHome();
    homes.push(home);
    const turns = 25;
    const workers = [start(home.dir, 'alice', String(turns)), start(home.dir, 'bob', String(turns))];
    const codes = await Promise.all(workers.map((w) => w.exited));
    for (const w of workers) {
      expect(w.lines.filter((l) => l.startsWith('error'))).toEqual([]);
      expect(w.lines.at(-1)).toBe('done');
    }
    expect(codes).toEqual([0, 0]);

    const ids = workers.map((w) => w.lines[0]!.split(' ')[1]!);
    expect(new Set(ids).size).toBe(2);
    const store = openStore({ home: home.dir });
    for (const [i, user] of ['alice', 'bob'].entries()) {
      const session = (await store.sessions.get(ids[i]!, user))!;
      expect(session).toMatchObject({ userId: user, turns, inputTokens: turns * 10 });
      expect(await store.runs.list({ userId: user, sessionId: session.id, limit: 100 })).toHaveLength(turns);
      expect(await store.memory.list(user)).toHaveLength(turns / 5);
      const state = await chatGraph(store.checkpointer).getState({ configurable: { thread_id: session.id } });
      expect(state.values.messages).toHaveLength(turns * 2);
    }
    await store.close();
  }, 60_000);

  it('a process killed with SIGKILL mid-write leaves an intact file holding every completed turn', async () => {
    const home = tempHome();
    homes.push(home);
    const w = start(home.dir, 'alice', 'forever');
    const sessionLine = await w.waitFor((l) => l.startsWith('session '));
    await w.waitFor((l) => l === 'turn 12');
    w.child.kill('SIGKILL');
    await w.exited;
    const completed = w.lines.filter((l) => l.startsWith('turn ')).length;
    expect(completed).toBeGreaterThanOrEqual(12);

    const file = `${home.dir}/birdie.db`;
    const raw = new Database(file);
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();

    const store = openStore({ home: home.dir });
    const sessionId = sessionLine.split(' ')[1]!;
    const state = await chatGraph(store.checkpointer).getState({ configurable: { thread_id: sessionId } });
    const humans = (state.values.messages as { content: string }[])
      .map((m) => m.content)
      .filter((c) => c.startsWith('turn '));
    for (let n = 1; n <= completed; n += 1) expect(humans.some((c) => c.startsWith(`turn ${n} `))).toBe(true);
    expect((await store.sessions.get(sessionId, 'alice'))!.turns).toBeGreaterThanOrEqual(completed);
    // The file stays usable: the session continues where it stopped.
    const graph = chatGraph(store.checkpointer);
    await graph.invoke(
      { messages: [{ role: 'user', content: 'after the crash' }] },
      { configurable: { thread_id: sessionId } },
    );
    await store.close();
  }, 60_000);
});
