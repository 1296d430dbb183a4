import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { type DbState, lockedError, type ReadOnlyState, readOnlyError } from './db.js';
import { diskFullError, formatBytes, freeBytes, NEARLY_FULL_BYTES } from './disk-space.js';
import { StoreError } from './errors.js';
import { markMalformed } from './malformed-mark.js';

/**
 * The one place where SQLite's and the file system's failures become `StoreError`s, so a full disk
 * reads the same whether it hit a new session or an old one. Errors without an SQLite or errno code
 * (bugs) pass through unchanged.
 */
export function toStoreError(error: unknown, state: DbState): unknown {
  if (error instanceof StoreError) return error;
  const code = codeOf(error);
  if (code === undefined) return error;
  const { file } = state;
  const reason = (error as Error).message;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return lockedError(state, error);
  }
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EFBIG' || code.startsWith('SQLITE_IOERR')) {
    const limit = fileSizeLimit();
    if (code === 'EFBIG' || (limit !== undefined && nearLimit(file, limit)))
      return tooLarge(state, limit, error);
    if (code === 'SQLITE_FULL' || code === 'ENOSPC' || nearlyFull(state.dir))
      return diskFullError(file, state.dir, error);
    return new StoreError('io', `cannot read or write ${file}: ${reason}`, {
      cause: error,
      file,
      hint: `check the disk that holds ${state.dir}; the system log names the failing device`,
    });
  }
  if (
    code.startsWith('SQLITE_READONLY') ||
    code === 'SQLITE_CANTOPEN' ||
    code === 'SQLITE_AUTH' ||
    code === 'SQLITE_PERM' ||
    code === 'EACCES' ||
    code === 'EPERM' ||
    code === 'EROFS'
  ) {
    const found = probeReadOnly(file, state.dir);
    if (found || code.startsWith('SQLITE_READONLY')) {
      state.readOnly ??= found ?? {
        reason: 'file-not-writable',
        message: `SQLite refused to write (${reason})`,
        hint: `make ${file} and its folder writable: chmod u+w ${file} ${state.dir}`,
      };
      const mapped = readOnlyError(state);
      return new StoreError('read-only', mapped.message, { cause: error, file, hint: mapped.hint });
    }
    return new StoreError('io', `cannot open ${file}: ${reason}`, {
      cause: error,
      file,
      hint: `check that ${file} exists and is a birdie database`,
    });
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    const ro = malformedState(file, reason);
    state.readOnly = ro;
    markMalformed(file, reason);
    return new StoreError(
      'malformed',
      `${file} is malformed (SQLite: ${reason}); nothing more is written into it`,
      {
        cause: error,
        file,
        hint: ro.hint,
      },
    );
  }
  if (code === 'SQLITE_TOOBIG') {
    return new StoreError('invalid-argument', `a value is too big to store in ${file} (${reason})`, {
      cause: error,
      file,
    });
  }
  if (code.startsWith('SQLITE_')) {
    return new StoreError('io', `SQLite failed on ${file}: ${reason}`, { cause: error, file });
  }
  return error;
}

/** The read-only state of a file SQLite reported malformed. */
export function malformedState(file: string, reason: string): ReadOnlyState {
  return {
    reason: 'malformed',
    message: `it is malformed (SQLite: ${reason})`,
    hint: `keep a copy of ${file}, then recover it with \`sqlite3 ${file} .recover | sqlite3 recovered.db\` and put recovered.db in its place, or move ${file} aside to start afresh`,
  };
}

/**
 * Why `file` (or, for a file not created yet, its folder) cannot be written, if that is the case.
 * `access(2)` answers for the real user (root passes unless the file system is read-only).
 */
export function probeReadOnly(file: string, dir: string): ReadOnlyState | undefined {
  const fileError = accessError(file);
  if (fileError === 'EROFS') return readOnlyFileSystem(file, dir);
  if (fileError === 'EACCES' || fileError === 'EPERM') {
    return {
      reason: 'file-not-writable',
      message: 'the file is not writable',
      hint: `chmod u+w ${file}; it must belong to the user running birdie`,
    };
  }
  const dirError = accessError(dir);
  if (dirError === 'EROFS') return readOnlyFileSystem(file, dir);
  if (dirError === 'EACCES' || dirError === 'EPERM') {
    return {
      reason: 'folder-not-writable',
      message: `its folder ${dir} is not writable (SQLite keeps ${file}-wal and ${file}-shm beside it)`,
      hint: `chmod u+w ${dir}; it must belong to the user running birdie`,
    };
  }
  return undefined;
}

function readOnlyFileSystem(file: string, dir: string): ReadOnlyState {
  return {
    reason: 'read-only-file-system',
    message: 'it is on a read-only file system',
    hint: `remount the file system of ${dir} read-write, or point BIRDIE_HOME at a writable folder and move ${file} there`,
  };
}

function accessError(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    return codeOf(error);
  }
}

function tooLarge(state: DbState, limit: number | undefined, cause: unknown): StoreError {
  const what = limit === undefined ? 'the file-size limit' : `the file-size limit of ${formatBytes(limit)}`;
  return new StoreError(
    'file-too-large',
    `${state.file} reached ${what} of this process (ulimit -f); the last saved step is intact`,
    {
      cause,
      file: state.file,
      hint: 'raise the limit with `ulimit -f unlimited` before starting birdie, or delete old sessions',
    },
  );
}

/** The soft RLIMIT_FSIZE in bytes, or undefined when unlimited or unknown (not Linux). */
export function fileSizeLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max file size'));
    const soft = line?.slice('Max file size'.length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

/** A write failed and the database or its WAL is within a megabyte of the limit: the limit is why. */
function nearLimit(file: string, limit: number): boolean {
  const sizes = [file, `${file}-wal`].map((path) => statSync(path, { throwIfNoEntry: false })?.size ?? 0);
  return Math.max(...sizes) + 1024 * 1024 >= limit;
}

/** The read-only state of a store that opened on a full disk: it reads; a write gets `diskFullError`. */
export function diskFullState(dir: string): ReadOnlyState {
  const free = freeBytes(dir);
  return {
    reason: 'disk-full',
    message: `its disk is full${free === undefined ? '' : ` (${formatBytes(free)} free)`}`,
    hint: `free space on the disk that holds ${dir}, then open the store again`,
  };
}

/** An I/O error on a disk with next to no room left is the full disk, whatever SQLite called it. */
function nearlyFull(dir: string): boolean {
  const free = freeBytes(dir);
  return free !== undefined && free < NEARLY_FULL_BYTES;
}

export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
