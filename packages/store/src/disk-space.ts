import { statfsSync } from 'node:fs';
import { StoreError } from './errors.js';

/**
 * Below this much free space, an I/O error SQLite reports without naming a cause (`SQLITE_IOERR_SHMSIZE` when the
 * `-shm` file cannot grow to its 32 KiB, `SQLITE_IOERR_WRITE` …) is the full disk: a page, a WAL frame and the
 * shared-memory file all fit in far less than this.
 */
export const NEARLY_FULL_BYTES = 1024 * 1024;

/** The one `disk-full` error, whether a write met the full disk or the store opened on it. */
export function diskFullError(file: string, dir: string, cause?: unknown): StoreError {
  const free = freeBytes(dir);
  return new StoreError(
    'disk-full',
    `the disk holding ${file} is full${free === undefined ? '' : ` (${formatBytes(free)} free)`}; the last saved step is intact`,
    {
      ...(cause === undefined ? {} : { cause }),
      file,
      hint: `free space on the disk that holds ${dir}, then try again`,
    },
  );
}

export function freeBytes(dir: string): number | undefined {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return undefined;
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(1)} GiB`;
}
