// vitest globalSetup: the CLI tests start `dist/bin.js`, a bundle that holds the CLI's sources and the @birdie
// packages' dist/ as they were when it was built. After `pnpm -F @birdie/graph build` (say), an older bundle would
// test old code; so when any input is newer than the bundle, it is rebuilt before the tests run.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, CLI_ROOT } from './env.js';

function newest(dir: string): number {
  let latest = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export default function setup(): void {
  const packages = join(CLI_ROOT, '..', '..', 'packages');
  const inputs = [
    join(CLI_ROOT, 'src'),
    join(CLI_ROOT, 'build'),
    ...readdirSync(packages).map((name) => join(packages, name, 'dist')),
  ];
  const built = (() => {
    try {
      return statSync(BIN).mtimeMs;
    } catch {
      return 0;
    }
  })();
  if (inputs.some((dir) => newest(dir) > built))
    execFileSync(process.execPath, [join(CLI_ROOT, 'build', 'bundle.mjs')], { stdio: 'inherit' });
}
