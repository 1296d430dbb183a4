#!/usr/bin/env node
// `pnpm test` / `pnpm test:corpus`: runs the task in every package (turbo --continue: one failing package does not
// stop the others), streams the output as it comes, then prints one row per package and a closing
// "N passed, N failed" line, after the failed tests again with the first lines of their errors (a CI log is often read
// from its end, and turbo interleaves two packages' output). Exits non-zero when any package's task failed.
import { spawn } from 'node:child_process';

const task = process.argv[2] ?? 'test';
const extra = process.argv.slice(3);
const ansi = /\x1b\[[0-9;]*m/g;
/** `pkg` → counts, from vitest's "Tests  N passed | M failed (T)" line under turbo's `pkg:task: ` prefix. */
const rows = new Map();
let pending = '';
/**
 * Vitest's " FAIL  file > test" headers and the first lines of their error, per package, in the order they came. Tests
 * that failed with one error are listed under one header each, the error after the last: they share it.
 */
const failures = [];
/** The failure whose error lines are still being taken, per package. */
const open = new Map();
const ERROR_LINES = 8;

function takeFailure(pkg, body) {
  const header = /^\s*FAIL\s+(.+)$/.exec(body);
  if (header) {
    const current = open.get(pkg);
    if (current && current.lines.length === 0) {
      current.titles.push(header[1].trim());
      return;
    }
    const failure = { pkg, titles: [header[1].trim()], lines: [], located: false };
    failures.push(failure);
    open.set(pkg, failure);
    return;
  }
  const failure = open.get(pkg);
  if (!failure) return;
  // Vitest draws a rule of ⎯ between failures and after the last one.
  if (body.includes('⎯')) {
    open.delete(pkg);
    return;
  }
  const line = body.trimEnd();
  if (line.trim() === '') return;
  // Where it failed (" ❯ file:line:col") is kept even past the first lines.
  const location = line.trim().startsWith('❯') && !failure.located;
  if (failure.lines.length < ERROR_LINES || location) failure.lines.push(line);
  if (location) failure.located = true;
}

function take(line) {
  const plain = line.replace(ansi, '');
  const prefix = /^(\S+?):[\w:-]+: (.*)$/.exec(plain);
  const pkg = prefix ? prefix[1] : '(root)';
  const body = prefix ? prefix[2] : plain;
  takeFailure(pkg, body);
  const row = rows.get(pkg) ?? { passed: 0, failed: 0, skipped: 0, files: 0 };
  const tests = /^\s*Tests\s+(.*)\(\d+\)\s*$/.exec(body);
  if (tests) {
    for (const [, n, kind] of tests[1].matchAll(/(\d+)\s+(passed|failed|skipped|todo)/g)) {
      if (kind === 'passed') row.passed += Number(n);
      else if (kind === 'failed') row.failed += Number(n);
      else row.skipped += Number(n);
    }
    rows.set(pkg, row);
  }
  // A file that fails to load reports "Test Files N failed" and "Tests no tests": count it as a failure.
  const files = /^\s*Test Files\s+.*?(\d+)\s+failed/.exec(body);
  if (files) {
    row.files += Number(files[1]);
    rows.set(pkg, row);
  }
}

const child = spawn('turbo', ['run', task, '--concurrency=2', '--continue', ...extra], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: process.env,
});
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const text = pending + chunk.toString('utf8');
  const lines = text.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) take(line);
});
child.on('close', (code) => {
  if (pending) take(pending);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const width = Math.max(7, ...[...rows.keys()].map((k) => k.length));
  console.log(`\n${'package'.padEnd(width)}  passed  failed  files failed`);
  for (const [pkg, row] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
    passed += row.passed;
    failed += row.failed;
    skipped += row.skipped;
    console.log(
      `${pkg.padEnd(width)}  ${String(row.passed).padStart(6)}  ${String(row.failed).padStart(6)}  ${String(row.files).padStart(12)}`,
    );
  }
  // Each failed test again, with its error; a package that failed without naming a test (an unhandled error, a file
  // that did not load, a crash) is named alone.
  const told = new Set();
  const lines = [];
  for (const failure of failures) {
    const titles = failure.titles.filter((title) => !told.has(`${failure.pkg} ${title}`));
    if (titles.length === 0) continue;
    for (const title of titles) {
      told.add(`${failure.pkg} ${title}`);
      lines.push(`${failure.pkg}  ${title}`);
    }
    for (const line of failure.lines) lines.push(`    ${line}`);
  }
  for (const [pkg, row] of rows) {
    if ((row.failed > 0 || row.files > 0) && !failures.some((f) => f.pkg === pkg))
      lines.push(`${pkg}  failed without naming a test: see its output above`);
  }
  if (code !== 0 && lines.length === 0)
    lines.push('a task failed without naming a test: see the output above');
  if (lines.length > 0) console.log(`\nfailed:\n${lines.join('\n')}`);
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 ? 0 : 1);
});
