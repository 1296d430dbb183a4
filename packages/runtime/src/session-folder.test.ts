import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore, type Store } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deferredSessionFolder, openSessionFolder } from './session-folder.js';

let dir: Awaited<ReturnType<typeof makeTempDir>>;
let store: Store;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  dir = await makeTempDir('birdie-folder-');
  env = { BIRDIE_HOME: join(dir.path, 'home') };
  store = openStore({ home: env.BIRDIE_HOME });
});
afterEach(async () => {
  await store.close();
  await dir.cleanup();
});

const text = async (s: Store, id: string, path: string) => {
  const bytes = await s.files.read(id, 'alice', path);
  return bytes && new TextDecoder().decode(bytes);
};
/** The same store as a server back end: the folder is then a cache of the store, never adopted. */
const asServer = (s: Store): Store => ({ ...s, kind: 'postgres' });

describe('the session folder kept in the store', () => {
  it('gives tools a private folder, and writes what they change back at each sync', async () => {
    const s = await store.sessions.create('alice');
    const folder = await openSessionFolder(store, env, s);
    expect(folder.dir).toBe(join(env.BIRDIE_HOME!, 'sessions', s.id));
    expect(folder.env).toEqual({ BIRDIE_HOME: env.BIRDIE_HOME, BIRDIE_SESSION_DIR: folder.dir });
    expect((await stat(folder.dir)).mode & 0o777).toBe(0o700);

    await writeFile(join(folder.dir, 'todo.json'), '{"v":1}');
    await mkdir(join(folder.dir, 'notes'));
    await writeFile(join(folder.dir, 'notes', 'a.md'), '# a');
    await folder.sync();
    expect((await store.files.list(s.id, 'alice')).map((f) => f.path)).toEqual(['notes/a.md', 'todo.json']);

    await writeFile(join(folder.dir, 'todo.json'), '{"v":2}');
    await rm(join(folder.dir, 'notes', 'a.md'));
    await folder.sync();
    expect((await store.files.list(s.id, 'alice')).map((f) => f.path)).toEqual(['todo.json']);
    expect(await text(store, s.id, 'todo.json')).toBe('{"v":2}');
  });

  it('leaves alone what the store cannot keep: symlinks, odd names, files over the size limit', async () => {
    const s = await store.sessions.create('alice');
    const folder = await openSessionFolder(store, env, s);
    await writeFile(join(dir.path, 'outside.txt'), 'secret');
    await symlink(join(dir.path, 'outside.txt'), join(folder.dir, 'link.txt'));
    await writeFile(join(folder.dir, 'with space.txt'), 'x');
    await writeFile(join(folder.dir, 'big.bin'), Buffer.alloc(1024 * 1024 + 1));
    await writeFile(join(folder.dir, 'ok.txt'), 'ok');
    await folder.sync();
    expect((await store.files.list(s.id, 'alice')).map((f) => f.path)).toEqual(['ok.txt']);
  });

  it('another process continuing the session finds the store’s files, and only those', async () => {
    const s = await store.sessions.create('alice');
    const first = await openSessionFolder(store, env, s);
    await writeFile(join(first.dir, 'todo.json'), '{"v":"from worker 1"}');
    await first.sync();

    // Worker 2: another home (another machine) with a stale copy and a leftover of its own.
    const other = { BIRDIE_HOME: join(dir.path, 'home2') };
    const stale = join(other.BIRDIE_HOME, 'sessions', s.id);
    await mkdir(stale, { recursive: true });
    await writeFile(join(stale, 'todo.json'), '{"v":"stale"}');
    await writeFile(join(stale, 'leftover.txt'), 'gone elsewhere');
    const second = await openSessionFolder(asServer(store), other, s);
    expect(await readFile(join(second.dir, 'todo.json'), 'utf8')).toBe('{"v":"from worker 1"}');
    expect(existsSync(join(second.dir, 'leftover.txt'))).toBe(false);
    expect((await stat(join(second.dir, 'todo.json'))).mode & 0o777).toBe(0o600);
  });

  it('on SQLite, a folder written before files were kept in the store is adopted, not wiped', async () => {
    const s = await store.sessions.create('alice');
    const legacy = join(env.BIRDIE_HOME!, 'sessions', s.id);
    await mkdir(legacy, { recursive: true });
    await writeFile(join(legacy, 'todo.json'), '{"v":"old"}');
    const folder = await openSessionFolder(store, env, s);
    expect(await readFile(join(folder.dir, 'todo.json'), 'utf8')).toBe('{"v":"old"}');
    await folder.sync();
    expect(await text(store, s.id, 'todo.json')).toBe('{"v":"old"}');
    // A server's worker has no such history: its empty store view wins.
    const other = await store.sessions.create('alice');
    const cache = join(env.BIRDIE_HOME!, 'sessions', other.id);
    await mkdir(cache, { recursive: true });
    await writeFile(join(cache, 'todo.json'), 'stale');
    await openSessionFolder(asServer(store), env, other);
    expect(existsSync(join(cache, 'todo.json'))).toBe(false);
  });

  it('a wrapped journal writes the files before a finished call is reported on', async () => {
    const s = await store.sessions.create('alice');
    const folder = await openSessionFolder(store, env, s);
    const seen: string[] = [];
    const journal = folder.journal({
      started: () => undefined,
      finished: async (_call: { id: string }) => {
        seen.push('finished');
      },
      startedAmong: async (_ids: readonly string[]) => new Set<string>(),
    });
    await writeFile(join(folder.dir, 'todo.json'), 'after the tool');
    await journal.finished({ id: 'c' });
    expect(seen).toEqual(['finished']);
    expect(await text(store, s.id, 'todo.json')).toBe('after the tool');
    // The rest of the journal is the original's.
    expect(await journal.startedAmong(['c'])).toEqual(new Set());
  });

  describe('deferred to the first tool of a turn', () => {
    const recording = (seen: string[]) => ({
      started: async (call: { id: string }) => {
        seen.push(`started ${call.id}`);
      },
      finished: async (call: { id: string }) => {
        seen.push(`finished ${call.id}`);
      },
    });

    it('touches no file in a turn that runs no tool', async () => {
      const s = await store.sessions.create('alice');
      await store.files.apply(s.id, 'alice', {
        put: [{ path: 'todo.json', content: Buffer.from('{}') }],
        remove: [],
      });
      const folder = deferredSessionFolder(store, env, s);
      expect(folder.dir).toBe(join(env.BIRDIE_HOME!, 'sessions', s.id));
      expect(folder.env).toEqual({ BIRDIE_HOME: env.BIRDIE_HOME, BIRDIE_SESSION_DIR: folder.dir });
      folder.journal(recording([]));
      await folder.sync();
      expect(existsSync(folder.dir)).toBe(false);
      expect((await store.files.list(s.id, 'alice')).map((f) => f.path)).toEqual(['todo.json']);
    });

    it('holds the store’s files before the first tool starts, and writes its changes back', async () => {
      const s = await store.sessions.create('alice');
      await store.files.apply(s.id, 'alice', {
        put: [{ path: 'todo.json', content: Buffer.from('{"v":1}') }],
        remove: [],
      });
      const folder = deferredSessionFolder(store, env, s);
      const seen: string[] = [];
      const journal = folder.journal(recording(seen));
      // Two calls of one step start together: the folder opens once, before either is recorded.
      await Promise.all([journal.started({ id: 'a' }), journal.started({ id: 'b' })]);
      expect(seen).toEqual(['started a', 'started b']);
      expect(await readFile(join(folder.dir, 'todo.json'), 'utf8')).toBe('{"v":1}');
      expect((await stat(folder.dir)).mode & 0o777).toBe(0o700);
      await writeFile(join(folder.dir, 'todo.json'), '{"v":2}');
      await journal.finished({ id: 'a' });
      expect(await text(store, s.id, 'todo.json')).toBe('{"v":2}');
      await writeFile(join(folder.dir, 'notes.md'), 'late');
      await folder.sync();
      expect((await store.files.list(s.id, 'alice')).map((f) => f.path)).toEqual(['notes.md', 'todo.json']);
    });

    it('a folder that cannot be opened fails the tool before its start is recorded', async () => {
      const s = await store.sessions.create('alice');
      // A file where the sessions folder should be: the folder cannot be made.
      await mkdir(env.BIRDIE_HOME!, { recursive: true });
      await writeFile(join(env.BIRDIE_HOME!, 'sessions'), 'not a folder');
      const folder = deferredSessionFolder(store, env, s);
      const seen: string[] = [];
      await expect(folder.journal(recording(seen)).started({ id: 'a' })).rejects.toThrow();
      expect(seen).toEqual([]);
      // Nothing ran there: the end of the turn has nothing to save.
      await expect(folder.sync()).resolves.toBeUndefined();
    });
  });
});
