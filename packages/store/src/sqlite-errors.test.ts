import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DbState } from './db.js';
import { StoreError } from './errors.js';
import { toStoreError } from './sqlite-errors.js';

let dir: string;
let state: DbState;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'birdie-store-errors-'));
  state = { file: join(dir, 'birdie.db'), dir };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A real SqliteError: `sql` run on a connection to `state.file` opened with `options`. */
function sqliteError(sql: string, options: Database.Options = {}): unknown {
  const setup = new Database(state.file);
  setup.exec('CREATE TABLE IF NOT EXISTS t (x)');
  setup.close();
  const db = new Database(state.file, options);
  try {
    db.exec(sql);
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error('expected SQLite to fail');
}

describe('toStoreError', () => {
  it('SQLITE_READONLY where the file looks writable: read-only, and the store turns read-only', async () => {
    const error = sqliteError('INSERT INTO t VALUES (1)', { readonly: true });
    const mapped = toStoreError(error, state) as StoreError;
    expect(mapped).toBeInstanceOf(StoreError);
    expect(mapped).toMatchObject({ code: 'read-only', file: state.file, cause: error });
    expect(mapped.message).toBe(
      `cannot write ${state.file}: SQLite refused to write (attempt to write a readonly database)`,
    );
    expect(state.readOnly?.reason).toBe('file-not-writable');
  });

  it('a malformed file: malformed, read-only from now on, and marked for later processes', async () => {
    const error = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    new Database(state.file).close();
    const mapped = toStoreError(error, state) as StoreError;
    expect(mapped.code).toBe('malformed');
    expect(state.readOnly?.reason).toBe('malformed');
    expect(existsSync(`${state.file}.malformed`)).toBe(true);
  });

  it('a full disk without a file-size limit is disk-full naming the folder', async () => {
    const mapped = toStoreError(
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
      state,
    );
    expect(mapped).toMatchObject({
      code: 'disk-full',
      file: state.file,
      hint: `free space on the disk that holds ${dir}, then try again`,
    });
  });

  it('lock errors are locked; errors without a code pass through unchanged', async () => {
    expect(
      toStoreError(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY_SNAPSHOT' }), state),
    ).toMatchObject({
      code: 'locked',
    });
    const bug = new TypeError('x is not a function');
    expect(toStoreError(bug, state)).toBe(bug);
  });
});
