import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { Store } from '@birdie/store';
import { ensureFolder } from './folders.js';
import { birdieHome } from './paths.js';
import { sessionDir } from './session-dir.js';

/**
 * A session's data folder (`BIRDIE_SESSION_DIR`: the todo plan, …) lives in the store, so that any process or
 * machine continuing the session sees it. Tools still see a plain folder: before a turn the runtime makes the local
 * folder hold what the store holds (`openSessionFolder`), and after each tool call and at the end of the turn it
 * writes what changed back (`sync`), under the session's lease like every other write of the turn. Tools never get
 * the store itself.
 */
export interface SessionFolder {
  readonly dir: string;
  /** What every skill tool of the session runs with (the agent adds `BIRDIE_SESSION_ID`). */
  readonly env: Record<string, string>;
  /** Writes the folder's changes since the last sync to the store (one change set); calls are serialised. */
  sync(): Promise<void>;
  /** Wraps a tool journal so that each finished call's file changes reach the store before its result is saved. */
  journal<J extends { finished(call: never): unknown }>(journal: J): J;
}

/**
 * The folder of a turn, opened (`openSessionFolder`) when its first tool starts rather than at the start of the turn:
 * only tools read or write it, so a turn that runs none touches no file (a served turn without tools used to make,
 * scan and re-scan the folder: about 5 ms of every turn). `dir` and `env` are known at once; `sync` before any tool
 * started has nothing to write. A folder that cannot be opened fails the tool that needed it, which then does not run.
 */
export function deferredSessionFolder(
  store: Store,
  env: NodeJS.ProcessEnv,
  session: { id: string; userId: string },
): SessionFolder {
  const dir = sessionDir(env, session.id);
  let opened: Promise<SessionFolder> | undefined;
  const open = () => {
    opened ??= openSessionFolder(store, env, session);
    return opened;
  };
  return {
    dir,
    env: { BIRDIE_HOME: birdieHome(env), BIRDIE_SESSION_DIR: dir },
    // Nothing ran in a folder that did not open.
    sync: () =>
      opened?.then(
        (folder) => folder.sync(),
        () => undefined,
      ) ?? Promise.resolve(),
    journal(journal) {
      const wrapped = Object.create(journal) as typeof journal;
      const { started } = journal as { started?: (call: never) => unknown };
      if (started) {
        (wrapped as unknown as { started(call: never): unknown }).started = async (call: never) => {
          await open();
          return started.call(journal, call);
        };
      }
      const finished = journal.finished.bind(journal) as (call: never) => unknown;
      (wrapped as { finished(call: never): unknown }).finished = async (call: never) => {
        await finished(call);
        // As `openSessionFolder`'s journal: a failure here is seen again by the sync at the end of the turn.
        await opened?.then((folder) => folder.sync()).catch(() => undefined);
      };
      return wrapped;
    },
  };
}

/** Limits of the store, mirrored here so that a file the store would refuse is left alone instead of failing a sync. */
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_PATH = 255;
const MAX_ENTRIES = 2000;
const SEGMENT = /^[A-Za-z0-9._-]{1,128}$/;

interface LocalFile {
  sha256: string;
  file: string;
}

/**
 * Opens the session's folder for a turn: `<home>/sessions/<id>` (mode 0700) made to hold exactly the store's files.
 * Files only this folder has are removed — except on the SQLite store when it holds no file of the session yet:
 * there the folder and the store are on one machine, and the folder is the older home of the data (written before
 * session files were kept in the store), so it is adopted and written to the store at the first sync.
 */
export async function openSessionFolder(
  store: Store,
  env: NodeJS.ProcessEnv,
  session: { id: string; userId: string },
): Promise<SessionFolder> {
  const dir = sessionDir(env, session.id);
  await ensureFolder(dir);
  const stored = await store.files.list(session.id, session.userId);
  const local = await scan(dir);
  const known = new Map<string, string>();
  if (stored.length > 0 || store.kind !== 'sqlite') {
    for (const file of stored) {
      known.set(file.path, file.sha256);
      if (local.get(file.path)?.sha256 === file.sha256) continue;
      const bytes = await store.files.read(session.id, session.userId, file.path);
      if (bytes !== undefined) await writeAtomically(join(dir, ...file.path.split('/')), bytes);
    }
    for (const [path, file] of local) if (!known.has(path)) await rm(file.file, { force: true });
  }
  let queue: Promise<void> = Promise.resolve();
  const syncNow = async () => {
    const now = await scan(dir);
    const put: { path: string; content: Uint8Array }[] = [];
    for (const [path, file] of now) {
      if (known.get(path) === file.sha256) continue;
      put.push({ path, content: await readFile(file.file) });
    }
    const remove = [...known.keys()].filter((path) => !now.has(path));
    if (put.length === 0 && remove.length === 0) return;
    await store.files.apply(session.id, session.userId, { put, remove });
    for (const path of remove) known.delete(path);
    for (const [path, file] of now) known.set(path, file.sha256);
  };
  const folder: SessionFolder = {
    dir,
    env: { BIRDIE_HOME: birdieHome(env), BIRDIE_SESSION_DIR: dir },
    sync() {
      const next = queue.then(syncNow, syncNow);
      queue = next.catch(() => undefined);
      return next;
    },
    journal(journal) {
      const wrapped = Object.create(journal) as typeof journal;
      const finished = journal.finished.bind(journal) as (call: never) => unknown;
      (wrapped as { finished(call: never): unknown }).finished = async (call: never) => {
        await finished(call);
        // A failure here is seen again by the sync at the end of the turn, which reports it.
        await folder.sync().catch(() => undefined);
      };
      return wrapped;
    },
  };
  return folder;
}

/** Regular files under `dir` whose relative paths the store accepts; symlinks and anything else are left alone. */
async function scan(dir: string): Promise<Map<string, LocalFile>> {
  const found = new Map<string, LocalFile>();
  let entries = 0;
  const walk = async (folder: string, prefix: string): Promise<void> => {
    let names: string[];
    try {
      names = (await readdir(folder)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (++entries > MAX_ENTRIES) return;
      if (!SEGMENT.test(name) || name === '.' || name === '..') continue;
      const path = prefix ? `${prefix}/${name}` : name;
      if (path.length > MAX_PATH) continue;
      const file = join(folder, name);
      const info = await lstat(file).catch(() => undefined);
      if (!info) continue;
      if (info.isDirectory()) await walk(file, path);
      else if (info.isFile() && info.size <= MAX_FILE_BYTES) {
        const bytes = await readFile(file).catch(() => undefined);
        if (bytes) found.set(path, { sha256: createHash('sha256').update(bytes).digest('hex'), file });
      }
    }
  };
  await walk(dir, '');
  return found;
}

/** Temp file + rename, so a tool never reads half a file; folders 0700, files 0600 like the rest of the session. */
async function writeAtomically(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // A folder of the same name as the file (or the reverse) left by an older turn gives way to the store's version.
  const existing = await lstat(file).catch(() => undefined);
  if (existing && !existing.isFile()) await rm(file, { recursive: true, force: true });
  const temp = `${dirname(file)}${sep}.${randomBytes(6).toString('hex')}.birdie-tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
  await rename(temp, file);
}
