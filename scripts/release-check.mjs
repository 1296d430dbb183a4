#!/usr/bin/env node
// After `pnpm changeset version` and `pnpm build`, before publishing: checks that the release is what it claims to be.
// Every public package has a released version (not 0.0.0) and a CHANGELOG.md naming it, no changeset is left
// unconsumed, every internal dependency range admits the sibling's new version, and the built CLI's `--version`
// prints its package's version. Prints one line per problem; exits 1 if there is any.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path) => JSON.parse(readFileSync(path, 'utf8'));
const dirs = [
  ...readdirSync(join(ROOT, 'packages')).map((name) => join('packages', name)),
  join('apps', 'cli'),
];
const packages = dirs.map((dir) => ({ dir, manifest: read(join(ROOT, dir, 'package.json')) }));
const published = packages.filter(({ manifest }) => !manifest.private);
const versions = new Map(packages.map(({ manifest }) => [manifest.name, manifest.version]));
const problems = [];

const pending = readdirSync(join(ROOT, '.changeset')).filter(
  (file) => file.endsWith('.md') && file !== 'README.md',
);
if (pending.length > 0)
  problems.push(`${pending.length} changesets not consumed: run \`pnpm changeset version\``);

for (const { dir, manifest } of published) {
  if (manifest.version === '0.0.0') problems.push(`${manifest.name}: still 0.0.0`);
  const changelog = join(ROOT, dir, 'CHANGELOG.md');
  if (!existsSync(changelog)) problems.push(`${manifest.name}: no CHANGELOG.md`);
  else if (!readFileSync(changelog, 'utf8').includes(`## ${manifest.version}`)) {
    problems.push(`${manifest.name}: CHANGELOG.md has no "## ${manifest.version}" section`);
  }
  for (const field of ['dependencies', 'peerDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (!name.startsWith('@birdie/') || !versions.has(name)) continue;
      // pnpm pack turns workspace:^ into ^<version>, workspace:* into <version>: the sibling's version must be current.
      if (!/^workspace:[\^~*]?$/.test(range))
        problems.push(`${manifest.name}: ${field} ${name}@${range} is not a workspace range`);
    }
  }
}

const cli = packages.find(({ manifest }) => manifest.name === 'birdie');
const printed = execFileSync(process.execPath, [join(ROOT, cli.dir, 'dist', 'bin.js'), '--version'], {
  encoding: 'utf8',
});
if (printed.trim() !== cli.manifest.version) {
  problems.push(
    `birdie --version prints ${printed.trim()}, the package is ${cli.manifest.version}: run \`pnpm build\``,
  );
}

for (const problem of problems) console.log(`✗ ${problem}`);
console.log(
  problems.length === 0
    ? `release ready: ${published.map(({ manifest }) => `${manifest.name}@${manifest.version}`).join(', ')}`
    : `${problems.length} problems: not ready to publish`,
);
if (problems.length > 0) process.exitCode = 1;
