import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase, PAGE_CACHE_KIB } from './open.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("bounds each connection's page cache at SQLite's own default, not better-sqlite3's 16 MB", () => {
  const dir = mkdtempSync(join(tmpdir(), 'birdie-store-open-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'birdie.db'), dir);
  try {
    // Negative: a size in KiB. A long-running server's memory must not grow by the cache filling as the file grows.
    expect(db.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    expect(PAGE_CACHE_KIB).toBe(2000);
  } finally {
    db.close();
  }
});
