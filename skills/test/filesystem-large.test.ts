import { execFile } from 'node:child_process';
import { open, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { makeTempDir } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const TOOLS = pathToFileURL(join(import.meta.dirname, '..', 'filesystem', 'tools.mjs')).href;
const MiB = 1024 * 1024;

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;
let work: TempDir;

interface Measured {
  output?: string;
  error?: { code: string; message: string };
  /** Growth of the child's peak resident set during the call, in bytes. */
  grew: number;
}

/**
 * Calls read_file in a fresh node process and reports how much its peak memory (max RSS) grew during the call: in
 * this process, earlier tests would hide the growth under their own peak.
 */
async function measure(args: Record<string, unknown>): Promise<Measured> {
  const script = `
    const { read_file } = await import(${JSON.stringify(TOOLS)});
    const context = { cwd: process.argv[1] };
    // Warm up on a small file of the same shape, so that code compiled on first use is not counted.
    const args = JSON.parse(process.argv[2]);
    await read_file({ ...args, path: 'small-' + args.path }, context).catch(() => {});
    const before = process.resourceUsage().maxRSS * 1024;
    let result;
    try {
      result = { output: await read_file(args, context) };
    } catch (error) {
      result = { error: { code: error.code, message: error.message } };
    }
    result.grew = process.resourceUsage().maxRSS * 1024 - before;
    process.stdout.write(JSON.stringify(result));
  `;
  const { stdout } = await exec(
    process.execPath,
    ['--input-type=module', '-e', script, work.path, JSON.stringify(args)],
    // A read that blocks (the old code opening a FIFO) must fail the test, not hang it.
    { maxBuffer: 16 * MiB, timeout: 30_000, killSignal: 'SIGKILL' },
  );
  return JSON.parse(stdout) as Measured;
}

/** A sparse file: `head`, then zeros (a hole: no disk space) up to `size` bytes. */
async function sparse(name: string, head: string, size: number): Promise<string> {
  const path = join(work.path, name);
  await writeFile(path, head);
  await truncate(path, size);
  return path;
}

const HEAD_LINES = 20_000;
const head = Array.from({ length: HEAD_LINES }, (_, i) => `line ${i + 1}\n`).join('');
const BINARY_SIZE = 1536 * MiB;
const TEXT_SIZE = 512 * MiB;

beforeAll(async () => {
  work = await makeTempDir('birdie-fs-large-');
  await sparse('huge.bin', 'first line\n', BINARY_SIZE);
  // Text for the first 8,000 bytes (the binary check), then one 500 MB "line" of zeros.
  await sparse('huge.txt', head, TEXT_SIZE);
  await sparse('small-huge.bin', 'first line\n', MiB);
  await sparse('small-huge.txt', head, 2 * MiB);
  await exec('mkfifo', [join(work.path, 'small-pipe')]);
});
afterAll(async () => {
  await work?.cleanup();
});

describe('read_file on very large files reads bounded chunks (issue 12, defect 6)', {
  timeout: 120_000,
}, () => {
  it('refuses a 1.5 GB binary file from its first bytes', async () => {
    const result = await measure({ path: 'huge.bin' });
    expect(result.error).toMatchObject({ code: 'binary-file' });
    expect(result.error?.message).toContain(`(${BINARY_SIZE} bytes)`);
    expect(result.grew).toBeLessThan(BINARY_SIZE / 100);
  });

  it('returns a line range near the start of a 512 MB file', async () => {
    const result = await measure({ path: 'huge.txt', start_line: 10, end_line: 12 });
    expect(result.output).toBe('line 10\nline 11\nline 12\n');
    expect(result.grew).toBeLessThan(TEXT_SIZE / 100);
  });

  it('returns the first part of a whole-file read, saying how to read on', async () => {
    const result = await measure({ path: 'huge.txt' });
    const output = result.output ?? '';
    const note =
      /\n\[truncated: "huge\.txt" is (\d+) bytes; this shows lines 1-(\d+)\. Call read_file with start_line=(\d+) to read on\.\]$/.exec(
        output,
      );
    expect(note?.[1]).toBe(String(TEXT_SIZE));
    const shown = Number(note?.[2]);
    expect(Number(note?.[3])).toBe(shown + 1);
    expect(output.slice(0, note?.index)).toBe(
      head
        .split(/(?<=\n)/)
        .slice(0, shown)
        .join(''),
    );
    expect(Buffer.byteLength(output)).toBeLessThan(32_000);
    expect(result.grew).toBeLessThan(TEXT_SIZE / 100);
  });

  it('streams to a range at the end of the file, returning a bounded part of an enormous line', async () => {
    const last = HEAD_LINES + 1;
    const result = await measure({ path: 'huge.txt', start_line: last });
    const output = result.output ?? '';
    expect(output.startsWith('\0'.repeat(1000))).toBe(true);
    expect(output).toMatch(
      new RegExp(
        `\\n\\[truncated: line ${last} of "huge\\.txt" is longer than 30000 bytes; this shows its first 30000 bytes\\. .*start_line=${last + 1} reads the lines after it\\.\\]$`,
      ),
    );
    expect(result.grew).toBeLessThan(TEXT_SIZE / 100);

    const past = await measure({ path: 'huge.txt', start_line: last + 1 });
    expect(past.error).toMatchObject({ code: 'bad-range' });
    expect(past.error?.message).toContain(`has ${last} lines; start_line ${last + 1} is past the end`);
    expect(past.grew).toBeLessThan(TEXT_SIZE / 100);
  });

  it('never reads past the size it found: a special file is refused', async () => {
    const fifo = join(work.path, 'pipe');
    await exec('mkfifo', [fifo]);
    const result = await measure({ path: 'pipe' });
    expect(result.error).toMatchObject({ code: 'not-a-file' });
    // The FIFO was never opened for reading (that would block until a writer came).
    const handle = await open(fifo, 'r+');
    await handle.close();
  });
});
