import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatBook } from '../src/index.js';

// `stop()` of the channels waits for the chat book's writes: a scan of the home right after stop found the book's
// temp file vanish under it (a write still in flight). And a failed write must not stop every later one.

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('ChatBook.settled', () => {
  it('resolves once the writes asked for are on disk, with no temp file left', async () => {
    const dir = await makeTempDir('birdie-book-');
    cleanup = dir.cleanup;
    const path = join(dir.path, 'home', 'channels.json');
    const book = await ChatBook.open(path);
    void book.setRefused('tg:1:u1');
    void book.setReportedUpTo('telegram:alice', 7);
    await book.settled();
    expect(await readdir(join(dir.path, 'home'))).toEqual(['channels.json']);
    const saved = JSON.parse(await readFile(path, 'utf8'));
    expect(saved).toMatchObject({ refused: ['tg:1:u1'], reported: { 'telegram:alice': 7 } });
  });

  it('a failed write is reported to its caller, and the next change is still written', async () => {
    const dir = await makeTempDir('birdie-book-');
    cleanup = dir.cleanup;
    const path = join(dir.path, 'channels.json');
    const book = await ChatBook.open(path);
    // A folder where the temp file goes: the write fails (as root too).
    const temp = `${path}.${process.pid}.tmp`;
    await mkdir(temp);
    await expect(book.setRefused('tg:1:u1')).rejects.toThrow(/EISDIR|illegal operation/);
    await rm(temp, { recursive: true });
    await book.setRefused('tg:1:u2');
    const saved = JSON.parse(await readFile(path, 'utf8'));
    expect(saved.refused).toEqual(['tg:1:u1', 'tg:1:u2']);
  });
});
