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
/** Vitest's " FAIL  file > test" headers and the first lines of their errors, per package, in the order they came. */
const failures = [];
/** The failure whose error lines are still being taken, per package. */
const open = new Map();
const ERROR_LINES = 8;

function takeFailure(pkg, body) {
  const header = /^\s*FAIL\s+(.+)$/.exec(body);
  if (header) {
    const failure = { pkg, title: header[1].trim(), lines: [] };
    failures.push(failure);
    open.set(pkg, failure);
    return;
  }
  const failure = open.get(pkg);
  if (!failure) return;
  // Vitest draws a rule of ⎯ between failures and after the last one.
  if (body.includes('⎯') || failure.lines.length >= ERROR_LINES) open.delete(pkg);
  else if (body.trim() !== '') failure.lines.push(body.trimEnd());
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
  // Each failed test once (vitest names a failed file's tests in its list too, without the error).
  const told = new Set();
  for (const failure of failures) {
    const key = `${failure.pkg} ${failure.title}`;
    if (told.has(key) || failure.lines.length === 0) continue;
    if (told.size === 0) console.log('\nfailed:');
    told.add(key);
    console.log(`${failure.pkg}  ${failure.title}`);
    for (const line of failure.lines) console.log(`    ${line}`);
  }
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 ? 0 : 1);
});
