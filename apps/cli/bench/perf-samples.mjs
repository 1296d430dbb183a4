// Reading a Linux `perf record -g` of a Node process started with `--perf-basic-prof` (serve-profile.mjs --perf):
// each sample of the main thread (the one that limits a server's throughput) put in one bucket. Unlike `--cpu-prof`,
// perf samples from the kernel, so a server running a deep stack of small JavaScript functions (LangChain's) is not
// charged more for being sampled than one running SQLite, and system calls count.
//
// Buckets: `by: 'package'` is the package of the innermost JavaScript frame (a V8 builtin counts for the function
// that called it), with SQLite, garbage collection, compilation and system calls apart; `by: 'owner'` is the
// innermost frame of this repository's code or the servers' own (Hono, the floor server): who asked for the work;
// `by: 'owner-function'` is that frame's function and source file.
import { execFileSync } from 'node:child_process';
import { packageOf } from '../test/helpers/loaded-modules.mjs';
import { sourceAt } from './cpu-profile.mjs';

/** `JS:*name file:///…/chunk.js:line:col` (perf-basic-prof's names) → function name and source. */
function jsFrame(symbol, cache) {
  let frame = cache.get(symbol);
  if (frame) return frame;
  const match = /^JS:[*^~+-]?(.*?) ?((?:file|node):\S*?):(\d+):(\d+)$/.exec(symbol);
  if (!match) frame = { name: symbol, source: symbol };
  else {
    const [, name, url, line, column] = match;
    const mapped = url.startsWith('file:') ? sourceAt(url, Number(line) - 1, Number(column) - 1) : undefined;
    const source = (mapped?.source ?? url).replace(/^file:\/\/\/.*\/node_modules\//, 'node_modules/');
    frame = { name: name || '(anonymous)', source };
  }
  cache.set(symbol, frame);
  return frame;
}

const OWN_CODE = /^(packages\/|apps\/cli\/|node_modules\/(hono|@hono\/[^/]+)\/)/;
const GC = /Scaveng|MarkCompact|Heap::|GCTracer|Sweeper|Marking|Evacuat|MinorMC/;
const COMPILE = /compiler::|Compile|Turbofan|Maglev|Deoptimizer|interpreter::|Zone::/;

function bucketOf(frames, by, cache) {
  const [leaf] = frames;
  const js = frames.find((f) => f.symbol.startsWith('JS:'));
  const owned = by === 'owner' || by === 'owner-function';
  if (owned) {
    const own = frames.find(
      (f) => f.symbol.startsWith('JS:') && OWN_CODE.test(jsFrame(f.symbol, cache).source),
    );
    if (own) {
      const { name, source } = jsFrame(own.symbol, cache);
      return by === 'owner' ? packageOf(source) : `${name} ${source}`;
    }
  }
  const prefix = owned ? '(library) ' : '';
  if (/uv__io_poll|epoll_wait/.test(leaf.symbol) && !js) return '(idle)';
  if (leaf.dso.includes('better_sqlite3')) return `${prefix}SQLite`;
  if (GC.test(leaf.symbol)) return `${prefix}garbage collection`;
  if (COMPILE.test(leaf.symbol) && !leaf.symbol.startsWith('Builtins_')) return `${prefix}V8 compiler`;
  if (/libc|kernel|vdso/.test(leaf.dso)) return `${prefix}system calls and libc`;
  if (js) return `${prefix}${packageOf(jsFrame(js.symbol, cache).source)}`;
  return `${prefix}native (node, V8)`;
}

/**
 * The main thread's samples of `perf.data` by bucket, as ms per turn (`frequency` samples a second). `threads`: the
 * other threads' ms per turn (V8's compiler and GC helpers), which run beside it on another core.
 */
export function perfSamples(file, { by = 'package', frequency, turns }) {
  const text = execFileSync('perf', ['script', '-i', file], {
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString();
  const blocks = text.split('\n\n').filter((b) => b.trim() !== '');
  const tid = (block) => Number(/^\S+\s+(\d+)\s/.exec(block.trim())?.[1]);
  const main = Math.min(...blocks.map(tid).filter((t) => !Number.isNaN(t)));
  const cache = new Map();
  const out = new Map();
  let others = 0;
  for (const block of blocks) {
    if (tid(block) !== main) {
      others++;
      continue;
    }
    const frames = block
      .split('\n')
      .filter((l) => l.startsWith('\t'))
      .map((l) => {
        const m = /^\s*[0-9a-f]+ (.*) \((.*)\)$/.exec(l);
        return m ? { symbol: m[1].replace(/\+0x[0-9a-f]+$/, ''), dso: m[2] } : { symbol: l.trim(), dso: '' };
      });
    if (frames.length === 0) continue;
    const key = bucketOf(frames, by, cache);
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  const ms = (n) => (n * 1000) / frequency / turns;
  out.delete('(idle)');
  return { rows: [...out].map(([key, n]) => [key, ms(n)]), threads: ms(others) };
}
