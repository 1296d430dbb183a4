// read_file on one large text file (issue 12, defect 6): a line range near the start against reading the same bytes
// with fs.read, and the peak memory of each kind of call, measured in a fresh process, against the file's size.
import { execFile } from 'node:child_process';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const MiB = 1024 * 1024;
const LINE_BYTES = 80;

/**
 * Writes a text file of `sizeMb` MiB made of numbered 80-byte lines (a repeated 1 MiB block; the numbers restart in
 * each block, which does not matter to a reader counting newlines).
 * @param {string} path @param {number} sizeMb
 */
async function writeLargeFile(path, sizeMb) {
  const perBlock = Math.floor(MiB / LINE_BYTES);
  const block = Buffer.alloc(perBlock * LINE_BYTES);
  for (let i = 0; i < perBlock; i += 1) {
    block.write(`${`line ${i + 1} `.padEnd(LINE_BYTES - 1, '.')}\n`, i * LINE_BYTES, 'latin1');
  }
  const handle = await open(path, 'w');
  let written = 0;
  try {
    while (written < sizeMb * MiB) written += (await handle.write(block)).bytesWritten;
  } finally {
    await handle.close();
  }
  return written;
}

/**
 * Peak resident memory growth of one read_file call in a fresh node process, after warm-up calls of the same kind
 * on a small file (code compiled on first use and the heap's first growth are not the file's cost).
 * @param {string} tools @param {string} root @param {object} args
 */
async function peakGrowth(tools, root, args) {
  const script = `
    const { read_file } = await import(${JSON.stringify(tools)});
    const context = { cwd: process.argv[1] };
    const args = JSON.parse(process.argv[2]);
    for (let i = 0; i < 5; i += 1) await read_file({ ...args, path: 'warm.txt' }, context).catch(() => {});
    const before = process.resourceUsage().maxRSS;
    await read_file(args, context).catch(() => {});
    process.stdout.write(String((process.resourceUsage().maxRSS - before) * 1024));
  `;
  const { stdout } = await exec(process.execPath, [
    '--input-type=module',
    '-e',
    script,
    root,
    JSON.stringify(args),
  ]);
  return Number(stdout);
}

/**
 * Medians (ms) of a baseline and of candidates timed in turns, round after round (the order rotating), so that the
 * load of a shared machine weighs on all of them alike and the ratios hold.
 * @param {Array<() => Promise<unknown>>} fns @param {number} rounds
 */
async function interleaved(fns, rounds) {
  for (const fn of fns) for (let i = 0; i < 5; i += 1) await fn();
  /** @type {number[][]} */
  const times = fns.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (let k = 0; k < fns.length; k += 1) {
      const index = (round + k) % fns.length;
      const start = process.hrtime.bigint();
      await fns[index]?.();
      times[index]?.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return times.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN);
}

/**
 * @param {{ root: string; sizeMb: number; rounds: number;
 *   readFile: (args: Record<string, unknown>) => Promise<unknown>;
 *   readEntry: (args: Record<string, unknown>) => Promise<unknown>; toolsPath: string }} options
 * @returns {Promise<{ timing: Array<[string, number, number]>; memory: Array<[string, number, number]>; size: number }>}
 */
export async function benchLargeFile(options) {
  const { root, sizeMb, rounds } = options;
  const path = join(root, 'large.txt');
  const size = await writeLargeFile(path, sizeMb);
  await writeLargeFile(join(root, 'warm.txt'), 2);
  const line = 100; // near the start: the bytes through line 100 are 8,000
  const through = line * LINE_BYTES;
  const lastLine = size / LINE_BYTES;
  const scratch = Buffer.allocUnsafe(256 * 1024);
  /** Open, fs.read of `bytes` from the start in reads of at most 256 KiB, close: the least any reader must do. */
  const plainRead = async (/** @type {number} */ bytes) => {
    const handle = await open(path, 'r');
    try {
      for (let at = 0; at < bytes; at += scratch.length)
        await handle.read(scratch, 0, Math.min(scratch.length, bytes - at), at);
    } finally {
      await handle.close();
    }
  };
  const range = (/** @type {number} */ n) => ({ path: 'large.txt', start_line: n, end_line: n });

  /** @type {Array<[string, number, number]>} */
  const timing = [];
  const [baseRange = Number.NaN, direct = Number.NaN, entry = Number.NaN] = await interleaved(
    [() => plainRead(through), () => options.readFile(range(line)), () => options.readEntry(range(line))],
    rounds,
  );
  timing.push([
    `fs.open + fs.read of the ${through} bytes through line ${line} + close (baseline)`,
    baseRange,
    baseRange,
  ]);
  timing.push([`read_file start_line=end_line=${line}, direct call`, direct, baseRange]);
  timing.push([`read_file start_line=end_line=${line}, through the node: entrypoint`, entry, baseRange]);
  const [baseFirst = Number.NaN, whole = Number.NaN] = await interleaved(
    [() => plainRead(30_000), () => options.readFile({ path: 'large.txt' })],
    rounds,
  );
  timing.push(['fs.open + fs.read of 30,000 bytes + close (baseline)', baseFirst, baseFirst]);
  timing.push([
    'read_file of the whole file (returns the first 30,000 bytes + a note), direct call',
    whole,
    baseFirst,
  ]);
  const [baseScan = Number.NaN, scan = Number.NaN] = await interleaved(
    [() => plainRead(size), () => options.readFile(range(lastLine))],
    5,
  );
  timing.push([`fs.read of all ${sizeMb} MiB, 256 KiB at a time (baseline)`, baseScan, baseScan]);
  timing.push([
    `read_file start_line=end_line=${lastLine} (the last line: a scan), direct call`,
    scan,
    baseScan,
  ]);

  // The same calls on a 2 MiB file show what a call costs whatever the size (code, heap growth): the part that
  // grows with the file is the difference.
  const small = await writeLargeFile(join(root, 'small.txt'), 2);
  /** @type {Array<[string, number, number]>} */
  const memory = [];
  const tools = pathToFileURL(options.toolsPath).href;
  for (const [label, large, reference] of /** @type {Array<[string, object, object]>} */ ([
    [`start_line=end_line=${line}`, range(line), { ...range(line), path: 'small.txt' }],
    ['whole file (first part)', { path: 'large.txt' }, { path: 'small.txt' }],
    [
      'the last line (a scan to the end)',
      range(lastLine),
      { ...range(small / LINE_BYTES), path: 'small.txt' },
    ],
  ])) {
    memory.push([label, await peakGrowth(tools, root, large), await peakGrowth(tools, root, reference)]);
  }
  await rm(path, { force: true });
  return { timing, memory, size };
}
