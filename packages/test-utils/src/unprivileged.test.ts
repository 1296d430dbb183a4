import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readdir, rename, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  asUnprivileged,
  isUnprivilegedUnavailableError,
  makeTempDir,
  NOBODY,
  type TempDir,
} from './index.js';

// A clone under a private folder (`mktemp -d`, mode 0700) or under /root: the tests that re-check a permission as
// nobody must still run their code as nobody, though nobody cannot enter that folder.

const isRoot = process.getuid?.() === 0;
let dir: TempDir;
let tmp: TempDir;
beforeEach(async () => {
  dir = await makeTempDir('birdie-private-');
  tmp = await makeTempDir('birdie-nobody-tmp-');
});
afterEach(async () => {
  await dir.cleanup();
  await tmp.cleanup();
});

/** A tiny package at `private/a/b/repo`, where `private` and `a/b` are 0700, beside a secret only root may read. */
async function privateRepo(): Promise<{ repo: string; secret: string; closed: string[] }> {
  const inner = join(dir.path, 'a', 'b');
  const repo = join(inner, 'repo');
  await mkdir(join(repo, 'lib'), { recursive: true });
  await writeFile(
    join(repo, 'lib', 'check.mjs'),
    'export const tryRead = (file) => import("node:fs").then((fs) => fs.readFileSync(file, "utf8")).catch((e) => e.code);\n',
  );
  await writeFile(
    join(repo, 'main.mjs'),
    'import { tryRead } from "./lib/check.mjs";\nconsole.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(), read: await tryRead(process.argv[2]) }));\n',
  );
  const secret = join(dir.path, 'secret.txt');
  await writeFile(secret, 'root only');
  await chmod(secret, 0o000); // unreadable to its owner too, unless the owner is root
  for (const folder of [join(dir.path, 'a'), repo, join(repo, 'lib')]) await chmod(folder, 0o755);
  await symlink(join('a', 'b', 'repo'), join(dir.path, 'repo-link')); // entries of a closed folder keep their kind
  const closed = [dir.path, inner];
  for (const folder of closed) await chmod(folder, 0o700);
  return { repo, secret, closed };
}

describe('asUnprivileged (nobody, for root)', () => {
  it('runs code that sits under folders nobody cannot enter, as nobody, who still cannot read what is not theirs', async () => {
    const { repo, secret, closed } = await privateRepo();
    const prefix = asUnprivileged([repo]);
    const [command, ...args] = [...prefix, process.execPath, join(dir.path, 'repo-link', 'main.mjs'), secret];
    const run = spawnSync(command!, args, { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp.path } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const me = isRoot
      ? { uid: NOBODY, gid: NOBODY, groups: [NOBODY] } // no supplementary group (Node lists the gid itself)
      : { uid: process.getuid!(), gid: process.getgid!(), groups: process.getgroups!() };
    expect(JSON.parse(run.stdout)).toEqual({ ...me, read: 'EACCES' });
    // The folders themselves are left as they were, and nothing is left behind in the temp dir.
    for (const folder of closed) expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it.runIf(isRoot)(
    'keeps what is mounted below a closed folder (a repository on its own tmpfs)',
    async () => {
      const { repo, secret } = await privateRepo();
      // The repository becomes a tmpfs of its own, in a mount namespace of the test's, so the system is not touched.
      const stage = join(tmp.path, 'stage');
      await rename(repo, stage);
      await mkdir(repo, { mode: 0o755 });
      const mountRepo = 'mount -t tmpfs -o mode=755 tmpfs "$1" && cp -a "$2"/. "$1"/ && shift 2 && exec "$@"';
      const prefix = asUnprivileged([repo]);
      const [command, ...args] = ['unshare', '--mount', 'sh', '-c', mountRepo, 'sh', repo, stage, ...prefix];
      const run = spawnSync(command!, [...args, process.execPath, join(repo, 'main.mjs'), secret], {
        encoding: 'utf8',
        env: { ...process.env, TMPDIR: tmp.path },
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ uid: NOBODY, gid: NOBODY, groups: [NOBODY], read: 'EACCES' });
    },
  );

  it('opens a closed folder the kernel walks behind a symlinked ancestor (the real path, not the written one)', async () => {
    // `open/link` points into `real/x`: the written path names no closed folder, its real path goes through `real`.
    const repo = join(dir.path, 'real', 'x', 'repo');
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, 'main.mjs'), 'console.log(process.getuid());\n');
    await mkdir(join(dir.path, 'open'));
    await symlink(join('..', 'real', 'x'), join(dir.path, 'open', 'link'));
    await chmod(dir.path, 0o755);
    await chmod(join(dir.path, 'real'), 0o700);
    const linked = join(dir.path, 'open', 'link', 'repo');
    const [command, ...args] = [...asUnprivileged([linked]), process.execPath, join(linked, 'main.mjs')];
    const run = spawnSync(command!, args, { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp.path } });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(String(isRoot ? NOBODY : process.getuid!()));
  });

  it.runIf(isRoot)(
    'says what is missing when a mount namespace is not permitted (no CAP_SYS_ADMIN)',
    async () => {
      const { repo } = await privateRepo();
      // The real unshare, without CAP_SYS_ADMIN (as in Docker's default profile): the kernel refuses the namespace.
      const bin = join(tmp.path, 'bin');
      await mkdir(bin);
      const unshare = spawnSync('sh', ['-c', 'command -v unshare'], { encoding: 'utf8' }).stdout.trim();
      await writeFile(
        join(bin, 'unshare'),
        `#!/bin/sh\nexec setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin -- ${unshare} "$@"\n`,
        { mode: 0o755 },
      );
      const error = withPath(`${bin}:${process.env.PATH}`, () => catchError(() => asUnprivileged([repo])));
      expect(isUnprivilegedUnavailableError(error)).toBe(true);
      expect(error).toMatchObject({ code: 'unprivileged-unavailable' });
      const { message } = error as Error;
      expect(message).toContain(dir.path); // the folder nobody cannot enter
      expect(message).toContain('Operation not permitted');
      expect(message).toContain('CAP_SYS_ADMIN');
      expect(message).toContain('a folder others can enter');
    },
  );

  it.runIf(isRoot)('says what is missing when setpriv is not installed', async () => {
    await chmod(dir.path, 0o755);
    const error = withPath(tmp.path, () => catchError(() => asUnprivileged([dir.path])));
    expect(isUnprivilegedUnavailableError(error)).toBe(true);
    expect((error as Error).message).toMatch(/setpriv.*ENOENT.*util-linux/);
  });

  it('needs no mount namespace when nobody may enter every folder on the way', async () => {
    await chmod(dir.path, 0o755);
    const prefix = asUnprivileged([dir.path, process.execPath]);
    expect(prefix).toEqual(
      isRoot ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'] : [],
    );
  });
});

function withPath<T>(path: string, run: () => T): T {
  const saved = process.env.PATH;
  process.env.PATH = path;
  try {
    return run();
  } finally {
    process.env.PATH = saved;
  }
}

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
