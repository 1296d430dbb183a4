// Benchmark: discover + parse + validate 1,000 generated skills, against reading the same files with no parsing.
// BENCH_BASELINE=<folder> adds another build of this package (its `dist/`, e.g. one built from an older commit) as a
// row timed in the same run, and the rate of this build as a multiple of it.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VFile } from 'vfile';
import { discoverSkills, parseSkill } from '../dist/index.js';
import { skillProcessor } from '../dist/unified.js';
import { generateSkills } from './generate.mjs';

const COUNT = 1000;
const RUNS = 11;

async function readOnly(root) {
  const folders = (await readdir(root)).sort();
  const texts = [];
  let next = 0;
  const worker = async () => {
    while (next < folders.length) {
      const dir = join(root, folders[next++]);
      const names = await readdir(dir, { withFileTypes: true });
      if (names.some((n) => n.name === 'SKILL.md'))
        texts.push([join(dir, 'SKILL.md'), await readFile(join(dir, 'SKILL.md'), 'utf8')]);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return texts;
}

/** Median wall-clock and CPU time (user + system) of RUNS runs; CPU time is steadier on a shared machine. */
async function time(fn) {
  const wall = [];
  const cpu = [];
  let result;
  for (let i = 0; i < RUNS + 1; i++) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    result = await fn();
    const used = process.cpuUsage(startCpu);
    if (i === 0) continue; // the first run warms up the JIT and the page cache
    wall.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { ms: median(wall), cpu: median(cpu), result };
}

const root = await mkdtemp(join(tmpdir(), 'skill-parser-bench-'));
try {
  const { bytes } = await generateSkills(root, COUNT);
  const read = await time(() => readOnly(root));
  const discover = await time(() => discoverSkills(root));
  const baselineDir = process.env.BENCH_BASELINE;
  const baseline = baselineDir
    ? await time(async () => {
        const { discoverSkills: discoverBefore } = await import(resolve(baselineDir, 'index.js'));
        return discoverBefore(root);
      })
    : undefined;
  const texts = read.result;
  const parseAll = (filter) => () => {
    for (const [path, text] of texts) if (filter(text)) parseSkill(text, { path });
  };
  const isTool = (t) => t.includes('\n## Tools');
  const parseTools = await time(parseAll(isTool));
  const parseKnowledge = await time(parseAll((t) => !isTool(t)));
  // The unified route: remark's full mdast tree, then the same checks (the reference route; no target).
  const processor = skillProcessor();
  const fastAll = await time(parseAll(() => true));
  const unifiedAll = await time(() => {
    for (const [path, text] of texts) {
      const file = new VFile({ path, value: text });
      processor.runSync(processor.parse(file), file);
    }
  });

  const { skills, messages } = discover.result;
  const fatal = messages.filter((m) => m.fatal === true).length;
  if (skills.length !== COUNT || fatal)
    throw new Error(`expected ${COUNT} skills and no errors, got ${skills.length} and ${fatal}`);
  const toolCount = skills.reduce((n, s) => n + s.tools.length, 0);

  const rate = (ms, n) => Math.round((n / ms) * 1000).toLocaleString('en-US');
  const nTools = texts.filter(([, t]) => isTool(t)).length;
  console.log(
    `${COUNT} skills (${nTools} tool skills with ${toolCount} tools, ${COUNT - nTools} knowledge skills), ${(bytes / 1024 / 1024).toFixed(2)} MiB; median of ${RUNS} runs, Node ${process.version}\n`,
  );
  console.log(
    '| step | wall ms | skills/s (wall) | × read-only (wall) | CPU ms | skills/s (CPU) | × read-only (CPU) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const row = (name, t, n) =>
    console.log(
      `| ${name} | ${t.ms.toFixed(1)} | ${rate(t.ms, n)} | ${(t.ms / read.ms).toFixed(2)} | ${t.cpu.toFixed(1)} | ${rate(t.cpu, n)} | ${(t.cpu / read.cpu).toFixed(2)} |`,
    );
  row('read only (readdir + readFile, no parsing): baseline', read, COUNT);
  row('**discoverSkills: discover + parse + validate**', discover, COUNT);
  if (baseline) row(`discoverSkills of the baseline build (${baselineDir})`, baseline, COUNT);
  row(`parseSkill only, ${nTools} tool skills`, parseTools, nTools);
  row(`parseSkill only, ${COUNT - nTools} knowledge skills`, parseKnowledge, COUNT - nTools);
  row(`parseSkill only, all ${COUNT}: the fast route`, fastAll, COUNT);
  row(`unified route only, all ${COUNT}: remark-parse + remark-frontmatter + remarkSkill`, unifiedAll, COUNT);
  console.log(
    `\nthe unified route takes ${(unifiedAll.cpu / fastAll.cpu).toFixed(1)}× the fast route's CPU time (${(unifiedAll.ms / fastAll.ms).toFixed(1)}× wall-clock): it is the reference route, with no target`,
  );
  const target = 2000;
  const wall = (COUNT / discover.ms) * 1000;
  const cpu = (COUNT / discover.cpu) * 1000;
  if (baseline) {
    console.log(
      `\nthis build's rate ÷ the baseline's: ${(baseline.ms / discover.ms).toFixed(2)}× on wall-clock time, ${(baseline.cpu / discover.cpu).toFixed(2)}× on CPU time (goal ≥ 2×, issue 22)`,
    );
  }
  console.log(
    `\ntarget ≥ ${target} skills/s: ${wall >= target ? 'met' : 'NOT met'} on wall-clock time (${Math.round(wall)}/s), ${cpu >= target ? 'met' : 'NOT met'} on CPU time (${Math.round(cpu)}/s); load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
