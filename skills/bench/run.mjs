// `pnpm bench`: what the bundled node: tools cost per call, against doing the same work with plain fs calls in the
// same run. Prints a Markdown table of medians and ratios. Not a test: nothing here asserts a time.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveEntrypoint } from '@birdie/entrypoints';
import * as fsTools from '../filesystem/tools.mjs';
import * as todo from '../todo/tools.mjs';
import { benchLargeFile } from './large-file.mjs';

const skillsRoot = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = 200;

/** Median wall time in milliseconds of `fn` over `rounds` calls, after a short warm-up. */
/**
 * @param {(i: number) => Promise<unknown>} fn
 * @returns {Promise<number>}
 */
async function median(fn, rounds = ROUNDS) {
  for (let i = 0; i < 10; i += 1) await fn(i);
  const times = [];
  for (let i = 0; i < rounds; i += 1) {
    const start = process.hrtime.bigint();
    await fn(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const root = await mkdtemp(join(tmpdir(), 'birdie-skills-bench-'));
const content = `${'birdie "quotes" \\ $(x) 👋🏽\n'.repeat(40)}`;
const context = { cwd: root };
const entry = (/** @type {string} */ file, /** @type {string} */ name) =>
  resolveEntrypoint(`node:${file}#${name}`, { skillDir: join(skillsRoot, 'filesystem') });
const writeEntry = entry('tools.mjs', 'write_file');
const readEntry = entry('tools.mjs', 'read_file');
const searchEntry = entry('tools.mjs', 'search_files');
process.chdir(root);

// A small tree to search: 40 files of 200 lines.
await mkdir(join(root, 'tree'));
for (let f = 0; f < 40; f += 1) {
  const lines = Array.from(
    { length: 200 },
    (_, i) => `file ${f} line ${i} ${i % 50 === 0 ? 'NEEDLE' : 'hay'}`,
  );
  await writeFile(join(root, 'tree', `f${f}.txt`), lines.join('\n'));
}
async function plainSearch() {
  /** @type {string[]} */
  const hits = [];
  for (let f = 0; f < 40; f += 1) {
    const text = await readFile(join(root, 'tree', `f${f}.txt`), 'utf8');
    text.split('\n').forEach((line, i) => {
      if (/NEEDLE/.test(line)) hits.push(`tree/f${f}.txt:${i + 1}: ${line}`);
    });
  }
  return hits.join('\n');
}

/** @type {Array<[string, number, number]>} */
const rows = [];
const baselineWrite = await median((i) => writeFile(join(root, `plain-${i % 10}.txt`), content));
rows.push(['fs.writeFile (baseline)', baselineWrite, baselineWrite]);
rows.push([
  'write_file, direct call (confine + temp file + fsync + rename)',
  await median((i) => fsTools.write_file({ path: `direct-${i % 10}.txt`, content }, context)),
  baselineWrite,
]);
rows.push([
  'write_file through the node: entrypoint',
  await median((i) => writeEntry.run({ path: `entry-${i % 10}.txt`, content }, { cwd: root })),
  baselineWrite,
]);

const baselineRead = await median((i) => readFile(join(root, `plain-${i % 10}.txt`), 'utf8'));
rows.push(['fs.readFile (baseline)', baselineRead, baselineRead]);
rows.push([
  'read_file, direct call (confine + realpath + binary check)',
  await median((i) => fsTools.read_file({ path: `direct-${i % 10}.txt` }, context)),
  baselineRead,
]);
rows.push([
  'read_file through the node: entrypoint',
  await median((i) => readEntry.run({ path: `entry-${i % 10}.txt` }, { cwd: root })),
  baselineRead,
]);

const baselineSearch = await median(plainSearch, 50);
rows.push(['in-process walk + regex over 40 files (baseline)', baselineSearch, baselineSearch]);
rows.push([
  'search_files through the node: entrypoint (worker thread)',
  await median(() => searchEntry.run({ pattern: 'NEEDLE', path: 'tree' }, { cwd: root }), 50),
  baselineSearch,
]);

process.env.BIRDIE_HOME = join(root, 'home');
const session = { env: { BIRDIE_SESSION_ID: 'bench' } };
await todo.create_plan({ steps: Array.from({ length: 8 }, (_, i) => `step ${i + 1}`) }, session);
rows.push([
  'todo_complete_step, direct call (read + atomic write of the plan)',
  await median((i) => todo.complete_step({ step_number: (i % 8) + 1, summary: `done ${i}` }, session)),
  baselineWrite,
]);

// The large-file rows; the size is a parameter (default 256 MiB, so the file fits a small disk).
const sizeMb = Number(process.env.BIRDIE_BENCH_FILE_MB ?? 256);
const large = await benchLargeFile({
  root,
  sizeMb,
  rounds: ROUNDS,
  readFile: (args) => fsTools.read_file(/** @type {{ path: string }} */ (args), context),
  readEntry: (args) => readEntry.run(args, { cwd: root }),
  toolsPath: join(skillsRoot, 'filesystem', 'tools.mjs'),
});

await rm(root, { recursive: true, force: true });

console.log(`| operation (median of ${ROUNDS} calls; search: 50) | ms | ratio |`);
console.log('|---|---:|---:|');
for (const [label, ms, base] of rows)
  console.log(`| ${label} | ${ms.toFixed(3)} | ${(ms / base).toFixed(2)}× |`);

console.log(
  `\n| read_file on a ${sizeMb} MiB text file (medians of ${ROUNDS} interleaved calls; scans: 5) | ms | ratio |`,
);
console.log('|---|---:|---:|');
for (const [label, ms, base] of large.timing)
  console.log(`| ${label} | ${ms.toFixed(3)} | ${(ms / base).toFixed(2)}× |`);
console.log(
  `\n| read_file call, in a fresh process | peak RSS growth, ${sizeMb} MiB file | same call, 2 MiB file | growth, % of ${large.size} bytes |`,
);
console.log('|---|---:|---:|---:|');
for (const [label, bytes, reference] of large.memory)
  console.log(
    `| ${label} | ${(bytes / 1024).toFixed(0)} KiB | ${(reference / 1024).toFixed(0)} KiB | ${((bytes / large.size) * 100).toFixed(3)} % |`,
  );
