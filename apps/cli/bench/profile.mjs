// Where a start-up goes: runs the built CLI under `--cpu-prof` and prints its self time grouped by what the code is
// (a package, the module loader, the garbage collector), mapping bundled chunks back to sources through their
// sourcemaps, plus the source modules each command loads. The top-ten list in bench/README.md comes from this.
//
//   node bench/profile.mjs [--runs N] [--bin FILE] [--by source] [-- <birdie args>]
//   default: a scripted `birdie run` and `--version`; --by source: self time per source file, not per package
//   (--bin profiles another build of the CLI, e.g. an unbundled `tsc` output, for a before/after comparison)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI_ROOT, packageOf, sourcesOf, traceImports } from '../test/helpers/loaded-modules.mjs';
import { selfTimes, sourceAt } from './cpu-profile.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const bin = resolve(option('--bin', join(CLI_ROOT, 'dist', 'bin.js')));
const RUNS = Number(option('--runs', 5));
/** `--by source` groups JS by source file instead of by package. */
const bySource = option('--by', 'package') === 'source';
const dash = argv.indexOf('--');
const home = mkdtempSync(join(tmpdir(), 'birdie-profile-'));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  USER: 'bench',
  NO_COLOR: '1',
  BIRDIE_HOME: join(home, '.birdie'),
  LLM_VENDOR: 'scripted',
  LLM_SCRIPT: join(CLI_ROOT, 'examples', 'hello.json'),
};
const commands = dash === -1 ? [['run', 'hello'], ['--version']] : [argv.slice(dash + 1)];

function category(frame) {
  const { url, functionName, lineNumber, columnNumber } = frame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)' || functionName === '(idle)') return 'V8/Node outside JS (program, idle)';
  if (!url) return `native: ${functionName || '?'}`;
  if (url.startsWith('node:internal/modules/') || url.startsWith('node:internal/bootstrap/'))
    return 'Node module loader (resolve, read, compile, link)';
  if (url.startsWith('node:'))
    return `node builtins (${url.replace(/^node:(internal\/)?/, '').split('/')[0]})`;
  const source = sourceAt(url, lineNumber, columnNumber)?.source ?? sourcesOf([url])[0] ?? url;
  return bySource ? source.replace(/^.*node_modules\//, '') : packageOf(source);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
  for (const args of commands) {
    const dir = join(home, 'prof');
    const totals = new Map();
    const walls = [];
    for (let i = 0; i < RUNS; i++) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      const r = spawnSync(
        process.execPath,
        ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '100', bin, ...args],
        { env, cwd: home, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      if (r.status !== 0) throw new Error(`birdie ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      const [file] = readdirSync(dir);
      const { out, wall } = selfTimes(join(dir, file), category);
      walls.push(wall);
      for (const [k, v] of out) totals.set(k, [...(totals.get(k) ?? []), v]);
    }
    const rows = [...totals]
      .map(([k, xs]) => [k, median([...xs, ...Array(RUNS - xs.length).fill(0)])])
      .sort((a, b) => b[1] - a[1]);
    console.log(
      `\n\`birdie ${args.join(' ')}\`: profiled wall ${median(walls).toFixed(0)} ms (median of ${RUNS})\n`,
    );
    console.log('| self time by | ms |\n|---|---:|');
    for (const [k, ms] of rows.slice(0, 20)) console.log(`| ${k} | ${ms.toFixed(1)} |`);

    const urls = await traceImports(bin, args, { env, cwd: home });
    const files = urls.filter((u) => u.startsWith('file:'));
    const chunks = files.filter((u) => u.includes('/apps/cli/dist/'));
    const byPackage = new Map();
    for (const source of sourcesOf(urls)) {
      const name = packageOf(source);
      byPackage.set(name, (byPackage.get(name) ?? 0) + 1);
    }
    const listed = [...byPackage].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`);
    console.log(
      `\n${files.length} files loaded (${chunks.length} of them from the CLI's dist/); source modules by package: ${listed.join(', ')}`,
    );
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
