#!/usr/bin/env node
// `pnpm cycles`: no import cycles anywhere, type-only imports included (DESIGN §6). Runs dpdm once over the
// TypeScript of every `packages/*` and `apps/*` folder (src and test, co-located tests included; found by glob, so a
// new package is checked without editing this file), then prints the cycles grouped by package and exits non-zero
// on any. dpdm reads TypeScript without transforming it (no -T), so `import type` edges count.
// Imports of another workspace package resolve to its dist and are not followed (--exclude): the package graph
// itself is checked by turbo, which refuses a cyclic one.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const folders = ['packages', 'apps'];
const sources = ['src', 'test'];

/** Folders named on the command line (`pnpm cycles packages/graph`) narrow the check to them; none: all of them. */
const only = process.argv.slice(2).map((arg) => arg.replace(/\/+$/, ''));

/** Every workspace package with TypeScript to check: `{ dir: 'packages/graph', name: '@birdie/graph' }`. */
const packages = folders.flatMap((folder) =>
  readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, folder, entry.name, 'package.json')))
    .map((entry) => {
      const dir = `${folder}/${entry.name}`;
      const { name } = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      return { dir, name: name ?? dir };
    })
    .filter(({ dir }) => sources.some((source) => existsSync(join(root, dir, source))))
    .filter(({ dir }) => only.length === 0 || only.includes(dir)),
);
if (packages.length === 0) {
  console.error(`cycles: no package folder matches ${only.join(' ')}`);
  process.exit(2);
}
const globs = packages.flatMap(({ dir }) =>
  sources
    .filter((source) => existsSync(join(root, dir, source)))
    .map((source) => `${dir}/${source}/**/*.{ts,tsx,mts}`),
);

const manifest = createRequire(import.meta.url).resolve('dpdm/package.json');
const bin = join(manifest, '..', JSON.parse(readFileSync(manifest, 'utf8')).bin.dpdm);
const out = mkdtempSync(join(tmpdir(), 'birdie-cycles-'));
const report = join(out, 'dpdm.json');
const started = performance.now();
try {
  const args = [
    bin,
    '--no-tree',
    '--no-warning',
    '--no-circular',
    '--no-progress',
    '--exclude',
    '/(node_modules|dist)/',
    '--exit-code',
    'circular:1',
    '--output',
    report,
    ...globs,
  ];
  const run = spawnSync(process.execPath, args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });
  if (!existsSync(report)) {
    // dpdm failed before it analysed anything (a parse error, no files): show what it said.
    process.stderr.write(run.stdout + run.stderr);
    console.error(`cycles: dpdm failed (exit ${run.status ?? run.signal})`);
    process.exitCode = 2;
  } else {
    process.exitCode = print(JSON.parse(readFileSync(report, 'utf8')), run.status);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

/** Prints one row per package with its cycles under it; returns the exit code (dpdm's own on cycles). */
function print({ tree, circulars }, status) {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const files = Object.keys(tree).filter((file) => tree[file] !== null);
  // dpdm resolves through the nearest tsconfig.json (`./x.js` → `x.ts`); without one, or for a file that is not
  // there, the edge is silently missing and a cycle through it would pass. A relative import it cannot resolve fails.
  const unresolved = files.flatMap((file) =>
    tree[file]
      .filter((dep) => dep.id === null && dep.request.startsWith('.'))
      .map((dep) => `${file}: ${dep.request}`),
  );
  const width = Math.max(...packages.map(({ name }) => name.length));
  for (const { dir, name } of packages) {
    const found = circulars.filter((cycle) => cycle[0].startsWith(`${dir}/`));
    console.log(`${name.padEnd(width)}  ${found.length === 0 ? 'no cycles' : `${found.length} cycle(s)`}`);
    for (const cycle of found) console.log(`  ${[...cycle, cycle[0]].join(' -> ')}`);
  }
  console.log(
    `\n${circulars.length} import cycle(s) in ${files.length} files of ${packages.length} packages ` +
      `(dpdm, type-only imports included; ${seconds} s)`,
  );
  if (unresolved.length > 0) {
    console.error(`\ncycles: cannot check these relative imports (does the package have a tsconfig.json?):`);
    for (const line of unresolved) console.error(`  ${line}`);
  }
  if (circulars.length > 0) return status || 1;
  if (unresolved.length > 0) return 2;
  return status === 0 ? 0 : 2;
}
