// What a run of the bundled CLI loaded, as source modules: each dist chunk it imported is expanded into the sources
// its sourcemap lists (the chunk is the unit of loading, the sources are what it costs). Shared by the lazy-import
// test and the bench's profile script; plain JS so `node bench/…` can use it without a TypeScript loader.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const CLI_ROOT = resolve(here, '..', '..');
export const DIST = join(CLI_ROOT, 'dist');
const ROOT = resolve(CLI_ROOT, '..', '..');
const TRACE = join(here, 'trace-imports.mjs');

/**
 * Runs `node <bin> …args` with the import tracer; resolves with every module URL it resolved (deduplicated).
 * `input`, when given, is written to its stdin, which is then closed.
 */
export async function traceImports(bin, args, { env = process.env, cwd = process.cwd(), input } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'birdie-trace-'));
  const file = join(dir, 'trace.txt');
  try {
    await new Promise((done, fail) => {
      const child = execFile(
        process.execPath,
        ['--import', TRACE, bin, ...args],
        { env: { ...env, BIRDIE_TRACE_FILE: file }, cwd },
        (error, stdout, stderr) => (error ? fail(Object.assign(error, { stdout, stderr })) : done(undefined)),
      );
      if (input !== undefined) child.stdin?.end(input);
    });
    const urls = (await readFile(file, 'utf8')).trim().split('\n');
    return [...new Set(urls)];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The source modules behind loaded URLs: a dist chunk becomes the sources of its `.map` (paths relative to the
 * repository root, `node_modules/.pnpm/<store dir>/` shortened to `node_modules/`); a `node:` builtin stays as it is;
 * any other file is returned relative to the repository root.
 */
export function sourcesOf(urls) {
  const out = new Set();
  for (const url of urls) {
    if (!url.startsWith('file:')) {
      out.add(url);
      continue;
    }
    const path = fileURLToPath(url);
    const map = `${path}.map`;
    if (path.startsWith(DIST + sep) && existsSync(map)) {
      const { sources } = JSON.parse(readFileSync(map, 'utf8'));
      for (const source of sources) out.add(sourceName(path, source));
    } else out.add(short(relative(ROOT, path)));
  }
  return [...out].sort();
}

/** A sourcemap's `source` entry of the chunk at `chunkPath`, named as `sourcesOf` names it. */
export function sourceName(chunkPath, source) {
  return short(relative(ROOT, resolve(dirname(chunkPath), source)));
}

const short = (path) =>
  path
    .split(sep)
    .join('/')
    .replace(/(^|\/)node_modules\/\.pnpm\/[^/]+\/node_modules\//, '$1node_modules/');

/** `zod`, `@langchain/core`, `@birdie/graph` (from packages/graph), `birdie` (apps/cli), `node:` for builtins. */
export function packageOf(source) {
  if (source.startsWith('node:')) return 'node:';
  const dep = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
  if (dep) return dep[1];
  const own = /^packages\/([^/]+)\//.exec(source);
  if (own) return `@birdie/${own[1]}`;
  if (source.startsWith('apps/cli/')) return 'birdie';
  return source;
}
