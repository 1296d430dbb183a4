import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { attachState, BUSY_TIMEOUT_MS, type Db, type DbState, type ReadOnlyState, retryBusy } from './db.js';
import { StoreError } from './errors.js';
import { ensureFolder } from './folder.js';
import { readMalformedMark } from './malformed-mark.js';
import { MIGRATIONS } from './schema.js';
import { codeOf, diskFullState, malformedState, probeReadOnly, toStoreError } from './sqlite-errors.js';

/**
 * Opens `file` for reading and writing, creating and migrating it as needed. A file that cannot be
 * written (permissions, a read-only file system) or that SQLite has called malformed opens read-only
 * instead: `stateOf(db).readOnly` says why, and every write is refused before it reaches SQLite.
 */
/**
 * Each connection's page cache, in KiB: SQLite's own default. better-sqlite3 builds with 16,000 KiB, which a
 * long-running `birdie serve` filled as its file grew (RSS +12 MiB between turns 1,000 and 5,000 of the memory
 * bench); a turn's pages are a few dozen, and the operating system's file cache keeps the rest a `pread` away.
 */
export const PAGE_CACHE_KIB = 2000;

export function openDatabase(file: string, dir: string): Db {
  ensureFolder(dir);
  const state: DbState = { file, dir };
  const mark = readMalformedMark(file);
  if (mark !== undefined) return openReadOnly(state, malformedState(file, mark));
  const cannotWrite = prepareFile(file, dir);
  if (cannotWrite) return openReadOnly(state, cannotWrite);
  let db: Db | undefined;
  try {
    db = new Database(file);
    attachState(db, state);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    retryBusy(db, () => db!.pragma('journal_mode = WAL'));
    db.pragma('synchronous = NORMAL');
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    db.pragma('foreign_keys = ON');
    migrate(db, state);
    return db;
  } catch (error) {
    db?.close();
    const mapped = toStoreError(error, state);
    if (state.readOnly && mapped instanceof StoreError && ['read-only', 'malformed'].includes(mapped.code)) {
      return openReadOnly(state, state.readOnly);
    }
    // SQLite cannot even open a WAL file on a full disk (its -shm file cannot grow): read what is there, and let
    // every write fail as a write on a full disk does.
    if (mapped instanceof StoreError && mapped.code === 'disk-full')
      return openReadOnly(state, diskFullState(dir));
    if (mapped instanceof StoreError) throw mapped;
    throw new StoreError('io', `cannot open ${file}`, { cause: error, file });
  }
}

/** Creates a missing file 0600 (SQLite gives -wal and -shm the same mode); says why it cannot be written, if so. */
function prepareFile(file: string, dir: string): ReadOnlyState | undefined {
  if (existsSync(file)) return probeReadOnly(file, dir);
  try {
    closeSync(openSync(file, 'a', 0o600));
    return undefined;
  } catch (error) {
    const code = codeOf(error);
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      return (
        probeReadOnly(file, dir) ?? {
          reason: 'folder-not-writable',
          message: `the database cannot be created in ${dir}`,
          hint: `chmod u+w ${dir}`,
        }
      );
    }
    const mapped = toStoreError(error, { file, dir });
    if (mapped instanceof StoreError) throw mapped;
    throw new StoreError('io', `cannot create ${file}`, { cause: error, file });
  }
}

/**
 * Read-only opening. SQLite cannot read a WAL-mode file whose folder is read-only unless its -shm
 * file exists, so when the plain read-only open fails the file is read into memory with its header
 * switched to the rollback journal (the copy is never written back). A file that does not exist yet
 * reads as an empty store.
 */
function openReadOnly(state: DbState, readOnly: ReadOnlyState): Db {
  const { file } = state;
  state.readOnly = readOnly;
  // A file created empty on a full disk holds nothing yet, like a missing one.
  if (!existsSync(file) || statSync(file).size === 0) {
    const empty = new Database(':memory:');
    migrate(empty, state);
    attachState(empty, state);
    return empty;
  }
  let db: Db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    probe(db);
  } catch (error) {
    const code = codeOf(error);
    const noShm =
      code === 'SQLITE_CANTOPEN' || code?.startsWith('SQLITE_READONLY') || readOnly.reason === 'disk-full';
    if (!noShm) throw unreadable(state, error);
    try {
      db = snapshot(file);
      probe(db);
    } catch (inner) {
      throw unreadable(state, inner);
    }
    const wal = statSync(`${file}-wal`, { throwIfNoEntry: false });
    if (wal && wal.size > 0) {
      readOnly.message += `; the changes still in ${file}-wal cannot be read from here`;
    }
  }
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== MIGRATIONS.length) {
    db.close();
    if (version > MIGRATIONS.length) throw tooNew(version);
    throw new StoreError(
      'read-only',
      `cannot read ${file}: it has schema version ${version}, this birdie needs ${MIGRATIONS.length} and cannot upgrade a file it may not write (${readOnly.message})`,
      { file, hint: readOnly.hint },
    );
  }
  attachState(db, state);
  return db;
}

function snapshot(file: string): Db {
  const bytes = readFileSync(file);
  // Header bytes 18-19: file format write/read version, 2 = WAL, 1 = rollback journal.
  if (bytes.length >= 100 && bytes[18] === 2 && bytes[19] === 2) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  return new Database(bytes, { readonly: true });
}

function probe(db: Db): void {
  db.prepare('SELECT count(*) AS n FROM sqlite_master').get();
}

/** Nothing can be read: the header or the schema itself is damaged. */
function unreadable(state: DbState, cause: unknown): StoreError {
  const mapped = toStoreError(cause, state);
  if (mapped instanceof StoreError) return mapped;
  return new StoreError('io', `cannot read ${state.file}`, { cause, file: state.file });
}

function tooNew(version: number): StoreError {
  return new StoreError(
    'migration-failed',
    `database schema version ${version} is newer than this birdie understands (${MIGRATIONS.length})`,
  );
}

function migrate(db: Db, state: DbState): void {
  const current = () => db.pragma('user_version', { simple: true }) as number;
  if (current() === MIGRATIONS.length) return;
  // Foreign keys off while migrating (SQLite ignores the pragma inside a transaction): a migration that rebuilds a
  // table others refer to (SQLite's way to change a constraint) drops the old one, which with them on would delete
  // every row referring to it. Before commit, no more references may dangle than before, or nothing is applied.
  const dangling = () => (db.pragma('foreign_key_check') as unknown[]).length;
  db.pragma('foreign_keys = OFF');
  try {
    const tx = db.transaction(() => {
      const from = current();
      if (from > MIGRATIONS.length) throw tooNew(from);
      const before = dangling();
      for (let v = from; v < MIGRATIONS.length; v += 1) db.exec(MIGRATIONS[v]!);
      const after = dangling();
      if (after > before) throw new Error(`the migration left ${after - before} row(s) referring to no row`);
      db.pragma(`user_version = ${MIGRATIONS.length}`);
    });
    retryBusy(db, () => tx.immediate());
  } catch (cause) {
    if (cause instanceof StoreError) throw cause;
    const mapped = toStoreError(cause, state);
    if (mapped instanceof StoreError && mapped.code !== 'io') throw mapped;
    throw new StoreError('migration-failed', `cannot migrate ${state.file}`, { cause, file: state.file });
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
