// Sums vitest's per-package "Tests  N passed | M failed" lines into one closing line for CI.
import { readFileSync } from 'node:fs';

const text = readFileSync(process.argv[2], 'utf8').replace(/\x1b\[[0-9;]*m/g, '');
let passed = 0;
let failed = 0;
let skipped = 0;
for (const line of text.split('\n')) {
  const match = /^(?:.*:\s*)?\s*Tests\s+(.*)\(\d+\)\s*$/.exec(line);
  if (!match) continue;
  for (const [, count, kind] of match[1].matchAll(/(\d+)\s+(passed|failed|skipped|todo)/g)) {
    if (kind === 'passed') passed += Number(count);
    else if (kind === 'failed') failed += Number(count);
    else skipped += Number(count);
  }
}
if (passed + failed === 0) {
  console.error('no test results found in the log');
  process.exit(1);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed === 0 ? 0 : 1);
