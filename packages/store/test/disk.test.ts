import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { asUnprivileged } from '@birdie/test-utils';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../src/index.js';
import { DIST_URL, readOnlyMount, runScript, smallDisk, tempHome } from './helpers.js';

// Disk and permission failures are made real in child processes, even as root (CI): a read-only bind
// mount or a small tmpfs in a private mount namespace, another user, or a file-size limit.

let home: ReturnType<typeof tempHome>;
let scripts: ReturnType<typeof tempHome>;
beforeAll(async () => {
  if (!existsSync(new URL(DIST_URL))) throw new Error('run `pnpm build` first');
});
beforeEach(async () => {
  home = tempHome();
  scripts = tempHome();
  chmodSync(scripts.dir, 0o755);
});
afterEach(async () => {
  home.cleanup();
  scripts.cleanup();
});

/** Prints one JSON line per attempt: its value, or the error's code, message, hint and file. */
const ATTEMPT = `
const attempt = async (label, fn) => {
  try {
    const value = await fn();
    console.log(JSON.stringify({ label, ok: true, value: value ?? null }));
  } catch (e) {
    console.log(JSON.stringify({ label, ok: false, name: e.name, code: e.code, message: e.message, hint: e.hint, file: e.file }));
  }
};
const checkpoint = (n, text) => ({ v: 4, id: '1f000000-0000-6000-8000-' + String(n).padStart(12, '0'), ts: new Date(0).toISOString(),
  channel_values: { notes: text }, channel_versions: { notes: n }, versions_seen: {} });
const meta = { source: 'loop', step: 0, parents: {} };
`;

/** A store with one session of alice (title, a checkpoint, a run), closed so its WAL is folded in. */
async function seed(dir: string): Promise<string> {
  const store = openStore({ home: dir });
  const { id } = await store.sessions.create('alice', { title: 'seeded' });
  const config = { configurable: { thread_id: id, checkpoint_ns: '' } };
  await store.checkpointer.put(
    config,
    {
      v: 4,
      id: '1f000000-0000-6000-8000-000000000001',
      ts: new Date(0).toISOString(),
      channel_values: { notes: 'hello' },
      channel_versions: { notes: 1 },
      versions_seen: {},
    },
    { source: 'loop', step: 0, parents: {} },
    { notes: 1 },
  );
  await store.runs.finish(await store.runs.start({ sessionId: id, userId: 'alice' }), { status: 'ok' });
  await store.close();
  return id;
}

/** Reads everything a read-only user needs, then tries the writes: a new session and an existing one. */
const READ_THEN_WRITE = `${ATTEMPT}
const { openStore } = await import(STORE);
const [home, sessionId] = process.argv.slice(2);
const store = openStore({ home });
console.log(JSON.stringify({ label: 'readOnly', value: store.readOnly ?? null, file: store.file }));
await attempt('list', async () => (await store.sessions.list('alice')).map((s) => s.title));
await attempt('get', async () => (await store.sessions.get(sessionId, 'alice'))?.title);
await attempt('checkpoint', async () => (await store.checkpointer.getTuple({ configurable: { thread_id: sessionId } }))?.checkpoint.channel_values);
await attempt('runs', async () => (await store.runs.list({ userId: 'alice', sessionId })).map((r) => r.status));
await attempt('create', () => store.sessions.create('alice'));
await attempt('rename', () => store.sessions.rename(sessionId, 'alice', 'x'));
await attempt('put', () => store.checkpointer.put({ configurable: { thread_id: sessionId, checkpoint_ns: '' } }, checkpoint(2, 'more'), meta, { notes: 2 }));
await attempt('lease', () => store.leases.acquire(sessionId));
await store.close();
`;

function byLabel(out: any[]): Record<string, any> {
  return Object.fromEntries(out.map((line) => [line.label, line]));
}

/** The reads all work, and every write fails with the same read-only message naming the file and the fix. */
function expectReadOnly(results: Record<string, any>, reason: string, message: string, hint: string) {
  const file = results.readOnly.file;
  expect(results.readOnly.value).toEqual({ reason, message, hint });
  expect(results.list).toMatchObject({ ok: true, value: ['seeded'] });
  expect(results.get).toMatchObject({ ok: true, value: 'seeded' });
  expect(results.checkpoint).toMatchObject({ ok: true, value: { notes: 'hello' } });
  expect(results.runs).toMatchObject({ ok: true, value: ['ok'] });
  for (const label of ['create', 'rename', 'put', 'lease']) {
    expect(results[label], label).toEqual({
      label,
      ok: false,
      name: 'StoreError',
      code: 'read-only',
      message: `cannot write ${file}: ${message}`,
      hint,
      file,
    });
  }
}

describe('a read-only folder or file', () => {
  it('a read-only file system (bind mount, real for root): reads work, writes say so', async () => {
    const sessionId = await seed(home.dir);
    const { code, out, stderr } = await runScript(
      scripts.dir,
      READ_THEN_WRITE,
      [home.dir, sessionId],
      readOnlyMount(home.dir),
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const file = join(home.dir, 'birdie.db');
    expectReadOnly(
      byLabel(out),
      'read-only-file-system',
      'it is on a read-only file system',
      `remount the file system of ${home.dir} read-write, or point BIRDIE_HOME at a writable folder and move ${file} there`,
    );
  });

  it('a file another user owns (run as nobody): reads work, writes name chmod', async () => {
    const sessionId = await seed(home.dir);
    chmodSync(home.dir, 0o755);
    chmodSync(join(home.dir, 'birdie.db'), 0o644);
    const { code, out } = await runScript(
      scripts.dir,
      READ_THEN_WRITE,
      [home.dir, sessionId],
      asUnprivileged(),
    );
    expect(code).toBe(0);
    const file = join(home.dir, 'birdie.db');
    expectReadOnly(
      byLabel(out),
      'file-not-writable',
      'the file is not writable',
      `chmod u+w ${file}; it must belong to the user running birdie`,
    );
  });

  it('a writable file in a folder it cannot write (run as nobody): reads work, writes name the folder', async () => {
    const sessionId = await seed(home.dir);
    chmodSync(home.dir, 0o755);
    chmodSync(join(home.dir, 'birdie.db'), 0o666);
    const { code, out } = await runScript(
      scripts.dir,
      READ_THEN_WRITE,
      [home.dir, sessionId],
      asUnprivileged(),
    );
    expect(code).toBe(0);
    const file = join(home.dir, 'birdie.db');
    expectReadOnly(
      byLabel(out),
      'folder-not-writable',
      `its folder ${home.dir} is not writable (SQLite keeps ${file}-wal and ${file}-shm beside it)`,
      `chmod u+w ${home.dir}; it must belong to the user running birdie`,
    );
  });

  it('no database yet in a read-only folder: an empty store that lists nothing and refuses writes', async () => {
    const script = `${ATTEMPT}
      const { openStore } = await import(STORE);
      const store = openStore({ home: process.argv[2] });
      await attempt('list', () => store.sessions.list('alice'));
      await attempt('create', () => store.sessions.create('alice'));
    `;
    const { out } = await runScript(scripts.dir, script, [home.dir], readOnlyMount(home.dir));
    const results = byLabel(out);
    expect(results.list).toMatchObject({ ok: true, value: [] });
    expect(results.create).toMatchObject({ ok: false, code: 'read-only' });
    expect(existsSync(join(home.dir, 'birdie.db'))).toBe(false);
  });
});

describe('a full disk', () => {
  it('a new session and a write to an existing one fail alike with disk-full, naming the folder; freeing space resumes', async () => {
    const script = `${ATTEMPT}
      import { openSync, writeSync, closeSync, rmSync } from 'node:fs';
      const { openStore } = await import(STORE);
      const home = process.argv[2];
      const store = openStore({ home });
      const { id } = await store.sessions.create('alice');
      const config = { configurable: { thread_id: id, checkpoint_ns: '' } };
      await store.checkpointer.put(config, checkpoint(1, 'first'), meta, { notes: 1 });
      const journal = await store.runs.journal(await store.runs.start({ sessionId: id, userId: 'alice' }));
      // Fill the disk to the last byte.
      const filler = home + '/filler';
      const fd = openSync(filler, 'w');
      for (let chunk = 1 << 16; chunk >= 1; ) {
        try { writeSync(fd, Buffer.alloc(chunk)); } catch { chunk >>= 1; }
      }
      closeSync(fd);
      await attempt('create', () => store.sessions.create('alice'));
      await attempt('put', () => store.checkpointer.put(config, checkpoint(2, 'x'.repeat(20000)), meta, { notes: 2 }));
      await attempt('rename', () => store.sessions.rename(id, 'alice', 'y'.repeat(200)));
      await attempt('journal', () => journal.started({ id: 'call_' + 'z'.repeat(400), name: 'run_bash' }));
      await attempt('read', async () => (await store.checkpointer.getTuple(config))?.checkpoint.channel_values);
      rmSync(filler);
      await attempt('after', async () => (await store.sessions.create('alice')).id);
      await store.close();
    `;
    const { code, out } = await runScript(scripts.dir, script, [home.dir], smallDisk(home.dir, '1m'));
    expect(code).toBe(0);
    const results = byLabel(out);
    const file = join(home.dir, 'birdie.db');
    const expected = {
      ok: false,
      name: 'StoreError',
      code: 'disk-full',
      message: `the disk holding ${file} is full (0 B free); the last saved step is intact`,
      hint: `free space on the disk that holds ${home.dir}, then try again`,
      file,
    };
    expect(results.create).toEqual({ label: 'create', ...expected });
    expect(results.put).toEqual({ label: 'put', ...expected });
    expect(results.rename).toEqual({ label: 'rename', ...expected });
    expect(results.journal).toEqual({ label: 'journal', ...expected });
    expect(results.read).toMatchObject({ ok: true, value: { notes: 'first' } });
    expect(results.after).toMatchObject({ ok: true });
  });
});

describe('a disk that is already full when the store opens', () => {
  it('opens read-only (SQLite cannot open a WAL file there), reads work, writes fail as on any full disk', async () => {
    const script = `${ATTEMPT}
      import { openSync, writeSync, closeSync, rmSync } from 'node:fs';
      const { openStore } = await import(STORE);
      const home = process.argv[2];
      const first = openStore({ home });
      const { id } = await first.sessions.create('alice', { title: 'kept' });
      const config = { configurable: { thread_id: id, checkpoint_ns: '' } };
      await first.checkpointer.put(config, checkpoint(1, 'first'), meta, { notes: 1 });
      await first.close();
      const filler = home + '/filler';
      const fd = openSync(filler, 'w');
      for (let chunk = 1 << 16; chunk >= 1; ) {
        try { writeSync(fd, Buffer.alloc(chunk)); } catch { chunk >>= 1; }
      }
      closeSync(fd);
      const store = openStore({ home });
      console.log(JSON.stringify({ label: 'readOnly', value: store.readOnly ?? null }));
      await attempt('list', async () => (await store.sessions.list('alice')).map((s) => s.title));
      await attempt('read', async () => (await store.checkpointer.getTuple(config))?.checkpoint.channel_values);
      await attempt('assertWritable', () => store.assertWritable());
      await attempt('create', () => store.sessions.create('alice'));
      await attempt('lease', () => store.leases.acquire(id));
      await store.close();
      rmSync(filler);
      const again = openStore({ home });
      await attempt('after', async () => (await again.sessions.create('alice')).id);
      await again.close();
    `;
    const { code, out, stderr } = await runScript(scripts.dir, script, [home.dir], smallDisk(home.dir, '1m'));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const results = byLabel(out);
    const file = join(home.dir, 'birdie.db');
    expect(results.readOnly.value).toEqual({
      reason: 'disk-full',
      message: 'its disk is full (0 B free)',
      hint: `free space on the disk that holds ${home.dir}, then open the store again`,
    });
    expect(results.list).toMatchObject({ ok: true, value: ['kept'] });
    expect(results.read).toMatchObject({ ok: true, value: { notes: 'first' } });
    const expected = {
      ok: false,
      name: 'StoreError',
      code: 'disk-full',
      message: `the disk holding ${file} is full (0 B free); the last saved step is intact`,
      hint: `free space on the disk that holds ${home.dir}, then try again`,
      file,
    };
    for (const label of ['assertWritable', 'create', 'lease'])
      expect(results[label]).toEqual({ label, ...expected });
    expect(results.after).toMatchObject({ ok: true });
  });
});

describe('a file-size limit (ulimit -f)', () => {
  it('fails the write with file-too-large instead of killing the process (Node ignores SIGXFSZ)', async () => {
    const script = `${ATTEMPT}
      import { readFileSync } from 'node:fs';
      const { openStore } = await import(STORE);
      const home = process.argv[2];
      const limit = readFileSync('/proc/self/limits', 'utf8').split('\\n').find((l) => l.startsWith('Max file size')).split(/\\s+/)[3];
      console.log(JSON.stringify({ label: 'limit', value: Number(limit) }));
      const store = openStore({ home });
      const { id } = await store.sessions.create('alice');
      const config = { configurable: { thread_id: id, checkpoint_ns: '' } };
      let parent = config;
      let failed = false;
      for (let n = 1; n < 400 && !failed; n += 1) {
        try {
          // Random text does not compress: the file grows by about its length per step.
          const text = Array.from({ length: 40000 }, () => String.fromCharCode(33 + Math.floor(Math.random() * 90))).join('');
          parent = await store.checkpointer.put(parent, checkpoint(n, text), meta, { notes: n });
        } catch (e) {
          failed = true;
          await attempt('put', () => { throw e; });
        }
      }
      await attempt('create', () => store.sessions.create('alice'));
      await attempt('read', async () => typeof (await store.checkpointer.getTuple(config))?.checkpoint.channel_values.notes);
      await store.close();
    `;
    const wrap = ['sh', '-c', 'ulimit -f 4096 && exec "$@"', 'sh'];
    const { code, out, stderr } = await runScript(scripts.dir, script, [home.dir], wrap);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const results = byLabel(out);
    const limit = results.limit.value as number;
    const mib = `${(limit / 1024 ** 2).toFixed(1)} MiB`;
    const file = join(home.dir, 'birdie.db');
    const expected = {
      ok: false,
      name: 'StoreError',
      code: 'file-too-large',
      message: `${file} reached the file-size limit of ${mib} of this process (ulimit -f); the last saved step is intact`,
      hint: 'raise the limit with `ulimit -f unlimited` before starting birdie, or delete old sessions',
      file,
    };
    expect(results.put).toEqual({ label: 'put', ...expected });
    expect(results.read).toMatchObject({ ok: true, value: 'string' });
  });
});
