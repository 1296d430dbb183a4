#!/usr/bin/env node
// `pnpm check:packages`: packs every public workspace package the way `pnpm publish` packs it (workspace: ranges
// replaced by versions) and checks each tarball with publint (package.json fields against the files it ships; warnings
// count as errors) and @arethetypeswrong/cli (its types resolve as its JavaScript does; `esm-only` profile, since every
// package is ESM only). Packages come from the workspace (`pnpm ls -r`), so a new one is checked without editing this
// script; private ones are never published and are skipped. Needs `pnpm build` first (the tarballs ship `dist`).
// Prints one row per package and the time taken; exits non-zero when any package has a problem.
// `pnpm check:packages @birdie/skill-parser …` checks the named packages only.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..');
const attw = join(root, 'node_modules', '.bin', 'attw');
/** What attw's `esm-only` profile ignores: resolution as CommonJS (`require`, node10). */
const ESM_ONLY_IGNORES = ['node10', 'node16-cjs'];

/** The workspace's public packages: `{ name, dir }`, in pnpm's order. */
async function publicPackages() {
  const { stdout } = await exec('pnpm', ['ls', '-r', '--depth', '-1', '--json'], { cwd: root });
  return JSON.parse(stdout)
    .filter((entry) => entry.private !== true)
    .map((entry) => ({ name: entry.name, dir: entry.path }));
}

/** Packs `dir` into `into`; resolves with the tarball's path. */
async function pack(dir, into) {
  const { stdout } = await exec('pnpm', ['pack', '--json', '--pack-destination', into], { cwd: dir });
  return JSON.parse(stdout).filename;
}

/** publint's messages for a tarball, formatted; suggestions are listed but do not fail the check. */
async function lint(tarball) {
  const { messages, pkg } = await publint({ pack: { tarball: tarball.buffer }, strict: true });
  const line = (m) => `publint ${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code}`;
  return {
    problems: messages.filter((m) => m.type !== 'suggestion').map(line),
    notes: messages.filter((m) => m.type === 'suggestion').map(line),
    pkg,
  };
}

/**
 * attw's verdict on a tarball, in this process (@arethetypeswrong/core, the checks the CLI runs, with its `esm-only`
 * profile: one TypeScript load for every package instead of one per CLI run); on a problem, the CLI's report of it.
 * A package with an `exports` map must ship types (attw alone passes a package without any).
 */
async function typesResolve(tarball, pkg) {
  // A package with no entry to import (the CLI: a `bin` only) has no types to resolve; publint still checks it.
  if (!pkg.exports && !pkg.main && !pkg.module) return [];
  const analysis = await checkPackage(createPackageFromTarballData(tarball));
  if (!analysis.types)
    return pkg.exports ? ['attw: the package exports modules without type declarations'] : [];
  const problems = analysis.problems.filter(
    (p) => !('resolutionKind' in p) || !ESM_ONLY_IGNORES.includes(p.resolutionKind),
  );
  if (problems.length === 0) return [];
  try {
    await exec(attw, [tarball.path, '--profile', 'esm-only', '--format', 'ascii'], { cwd: root });
    return [`attw: ${problems.map((p) => p.kind).join(', ')}`];
  } catch (error) {
    return [`attw: ${(error.stdout || error.message).trim()}`];
  }
}

const started = performance.now();
const out = await mkdtemp(join(tmpdir(), 'birdie-check-packages-'));
let failed = 0;
try {
  const only = process.argv.slice(2);
  const packages = (await publicPackages()).filter((p) => only.length === 0 || only.includes(p.name));
  if (only.length > packages.length) throw new Error(`no public package among: ${only.join(', ')}`);
  for (const { name, dir } of packages) {
    const packageStart = performance.now();
    const path = await pack(dir, out);
    const tarball = Object.assign(new Uint8Array(await readFile(path)), { path });
    const { problems, notes, pkg } = await lint(tarball);
    problems.push(...(await typesResolve(tarball, pkg)));
    const seconds = ((performance.now() - packageStart) / 1000).toFixed(1);
    console.log(`${problems.length ? 'FAIL' : 'ok  '} ${name} (${relative(root, dir)}) ${seconds} s`);
    for (const text of [...problems, ...notes]) console.log(`     ${text.replaceAll('\n', '\n     ')}`);
    if (problems.length) failed++;
  }
  const total = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `\n${packages.length} packages packed and checked (publint, attw --profile esm-only): ${failed} failed, ${total} s`,
  );
} finally {
  await rm(out, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
