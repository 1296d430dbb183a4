import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, realpath, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir, writeTree } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ROOT } from './helpers/env.js';

// The CLI as a user gets it: the tarball `pnpm pack` makes, unpacked where `npm install` puts it — into a project's
// node_modules, and into a global prefix's lib/node_modules. The runtime dependencies the tarball declares are linked
// from this workspace (the registry install itself is scripts/pack-install.mjs's job in CI). The folders around the
// package each hold a `skills/evil` skill (a bash tool, on by default): only the package's own skills may be bundled.
const exec = promisify(execFile);
let root: Awaited<ReturnType<typeof makeTempDir>>;
let project: string;
let prefix: string;
let marker: string;
let version: string;

const EVIL = (marker: string) => `---
name: evil
description: Must never load from outside the package.
enabled_by_default: true
---

## Tools

### pwn
description: Leaves a mark.
entrypoint: bash:touch ${marker}
`;

/** Unpacks the tarball as `<into>/birdie` and links each runtime dependency where npm would have put it. */
async function place(tarball: string, into: string, modules: string): Promise<string> {
  const staging = join(root.path, `unpack-${Math.random().toString(36).slice(2)}`);
  await mkdir(staging, { recursive: true });
  await exec('tar', ['-xzf', tarball, '-C', staging]);
  await mkdir(into, { recursive: true });
  const pkg = join(into, 'birdie');
  await rename(join(staging, 'package'), pkg);
  const manifest = JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    const target = join(modules, name);
    await mkdir(join(target, '..'), { recursive: true });
    await symlink(await realpath(join(CLI_ROOT, 'node_modules', name)), target);
  }
  return pkg;
}

beforeAll(async () => {
  root = await makeTempDir('birdie-installed-');
  marker = join(root.path, 'PWNED');
  const { stdout } = await exec('pnpm', ['pack', '--pack-destination', root.path], { cwd: CLI_ROOT });
  const tarball = stdout.trim().split('\n').at(-1) as string;
  version = (JSON.parse(await readFile(join(CLI_ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;

  project = join(root.path, 'project');
  await writeTree(project, { 'skills/evil/SKILL.md': EVIL(marker), 'sub/dir/.keep': '' });
  await place(tarball, join(project, 'node_modules'), join(project, 'node_modules'));

  prefix = join(root.path, 'prefix');
  // <prefix>/lib/node_modules/birdie/dist → ../../../skills is <prefix>/lib/skills
  await writeTree(prefix, { 'lib/skills/evil/SKILL.md': EVIL(marker) });
  const global = join(prefix, 'lib', 'node_modules');
  const globalPkg = await place(tarball, global, join(global, 'birdie', 'node_modules'));
  // As `changeset version` would leave it at the first release: --version must follow the package's own manifest.
  const manifest = join(globalPkg, 'package.json');
  await writeFile(
    manifest,
    (await readFile(manifest, 'utf8')).replace(/"version": "[^"]+"/, '"version": "0.1.0"'),
  );
}, 180_000);

afterAll(async () => {
  await root?.cleanup();
});

async function birdie(bin: string, args: string[], cwd: string) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(root.path, 'home'),
    BIRDIE_HOME: join(root.path, 'home', '.birdie'),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    LLM_VENDOR: 'scripted',
    LLM_SCRIPT: join(CLI_ROOT, 'examples', 'hello.json'),
  };
  await mkdir(env.BIRDIE_HOME as string, { recursive: true });
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, ...args], { env, cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const installs = () => [
  {
    kind: 'project',
    version: () => version,
    bin: join(project, 'node_modules', 'birdie', 'dist', 'bin.js'),
    cwds: [project, join(project, 'sub', 'dir'), root.path],
  },
  {
    kind: 'global',
    version: () => '0.1.0',
    bin: join(prefix, 'lib', 'node_modules', 'birdie', 'dist', 'bin.js'),
    cwds: [join(prefix, 'lib'), prefix, root.path],
  },
];

describe('the packed CLI, installed', { timeout: 180_000 }, () => {
  it('never loads a skills/ folder around the package as bundled, whatever the working folder', async () => {
    for (const { kind, bin, cwds } of installs()) {
      for (const cwd of cwds) {
        const list = await birdie(bin, ['skills', 'list'], cwd);
        expect({ kind, cwd, code: list.code }).toEqual({ kind, cwd, code: 0 });
        expect(list.stdout).not.toMatch(/^evil\b/m);
        const pwn = await birdie(bin, ['tool', 'pwn'], cwd);
        expect(pwn.code).not.toBe(0);
        expect(existsSync(marker)).toBe(false);
      }
    }
  });

  it('lists the bundled skills from inside the package', async () => {
    for (const { bin } of installs()) {
      const list = await birdie(bin, ['skills', 'list'], root.path);
      for (const name of ['filesystem', 'shell', 'todo', 'mcp-demo']) {
        expect(list.stdout).toMatch(new RegExp(`^${name} .* bundled `, 'm'));
      }
    }
  });

  it('prints its package version, and a scripted run warns about nothing', async () => {
    for (const { bin, version } of installs()) {
      expect((await birdie(bin, ['--version'], root.path)).stdout.trim()).toBe(version());
      const run = await birdie(bin, ['run', 'hello'], root.path);
      expect(run.code).toBe(0);
      // Nothing on stderr but the closing session line every `birdie run` prints.
      expect(run.stderr.split('\n').filter((line) => line && !line.startsWith('session '))).toEqual([]);
      expect(run.stdout).toContain('Hello');
    }
  });
});
