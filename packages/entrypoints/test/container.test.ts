import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  checkEntrypoint,
  configureContainerRuntime,
  confinementOf,
  containerRuntimeStatus,
  EntrypointError,
  type RunOptions,
  resolveEntrypoint,
  type ToolSettings,
} from '../src/index.js';
import { budgetFor, tempDir } from './helpers.js';
import { hostileStrings, MARKER } from './hostile-strings.js';

/**
 * Construction tests: a fake `podman`/`docker` on PATH records every argv it is started with (NUL-separated, one
 * file per call) and acts out what a real runtime says in the situations the entrypoint must name (image missing,
 * daemon down, a slow container). No container runs here; the real runs are at the end of this file.
 */
let dir: string;
let work: string;
let fakeBin: string;
let calls: string;
const realPath = process.env.PATH ?? '';

const FAKE = (callsDir: string) => `#!/bin/bash
n=$(ls "${callsDir}" | wc -l)
printf '%s\\0' "$(basename "$0")" "$@" > "${callsDir}/call-$(printf %04d "$n")"
if [ "$1" = rm ]; then exit 0; fi
image=""
for a in "$@"; do case "$a" in --*|run) ;; *) image=$a; break;; esac; done
case "$image" in
  missing/image) echo "Error: missing/image: image not known" >&2; exit 125;;
  daemon/down) echo "docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 125;;
  broken/runtime) echo "Error: crun: setrlimit RLIMIT_NPROC: Operation not permitted: OCI permission denied" >&2; exit 125;;
  no/command) echo "exec: nosuch: not found" >&2; exit 127;;
  slow/image) trap '' TERM; sleep 30;;
  *) echo "ran in $image";;
esac
`;

async function installFake(names: string[]): Promise<void> {
  await rm(fakeBin, { recursive: true, force: true });
  await mkdir(fakeBin, { recursive: true });
  for (const name of names) await writeFile(join(fakeBin, name), FAKE(calls), { mode: 0o755 });
}

async function recorded(): Promise<string[][]> {
  if (!existsSync(calls)) return [];
  const { readdir } = await import('node:fs/promises');
  const files = (await readdir(calls)).sort();
  return Promise.all(
    files.map(async (f) => (await readFile(join(calls, f), 'utf8')).split('\0').slice(0, -1)),
  );
}

async function outcome(
  entrypoint: string,
  args: Record<string, unknown> = {},
  settings: ToolSettings = {},
  options: RunOptions = {},
) {
  try {
    const result = await resolveEntrypoint(entrypoint, { skillDir: dir, settings }).run(args, {
      cwd: work,
      ...options,
    });
    return { ok: true as const, ...result };
  } catch (error) {
    if (!(error instanceof EntrypointError)) throw error;
    return { ok: false as const, code: error.code, message: error.message, exitCode: error.exitCode };
  }
}

beforeAll(async () => {
  dir = await tempDir('birdie-container-');
  work = join(dir, 'work');
  await mkdir(work);
  fakeBin = join(dir, 'bin');
  calls = join(dir, 'calls');
  await mkdir(calls);
});

afterEach(async () => {
  process.env.PATH = realPath;
  configureContainerRuntime(undefined);
  await rm(calls, { recursive: true, force: true });
  await mkdir(calls, { recursive: true });
});

afterAll(() => {
  process.env.PATH = realPath;
});

/** The fake runtimes and the few programs they use: a real podman or docker on this machine is never found. */
async function withFakeOnly(names: string[]) {
  await installFake(names);
  const tools = join(dir, 'tools');
  if (!existsSync(tools)) {
    await mkdir(tools);
    for (const tool of ['bash', 'sh', 'ls', 'wc', 'basename', 'sleep', 'perl']) {
      const path = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
      await symlink(path, join(tools, tool));
    }
  }
  process.env.PATH = [fakeBin, tools].join(delimiter);
}

const OPTIONS = [
  'run',
  '--rm',
  '--pull=never',
  expect.stringMatching(/^--name=birdie-\d+-[0-9a-f]{12}$/),
  '--network=none',
  '--read-only',
  '--cap-drop=ALL',
  '--security-opt=no-new-privileges',
  '--tmpfs=/tmp',
];

describe('container: argument and option construction (fake runtime; always runs)', {
  timeout: 60_000,
}, () => {
  it('runs argv words through the runtime: never pulls, no network, read-only root and /work, removed after', async () => {
    await withFakeOnly(['podman']);
    const result = await outcome('container:alpine:3.20 ls -la {path}', { path: 'a b; $(id)' });
    expect(result).toMatchObject({ ok: true, output: 'ran in alpine:3.20\n' });
    const argv = (await recorded())[0]!;
    expect(argv).toEqual([
      'podman',
      ...OPTIONS,
      `--volume=${work}:/work:ro`,
      '--workdir=/work',
      'alpine:3.20',
      'ls',
      '-la',
      'a b; $(id)',
    ]);
  });

  it('network, writable and the limits come from the tool; environment variables travel by name only', async () => {
    await withFakeOnly(['docker']);
    const settings = { network: true, writable: true, memory: '512m', cpus: 1.5, pids: 64 };
    await outcome(`container:ghcr.io/acme/tool@sha256:${'a'.repeat(64)} run --x={x}`, { x: 'v' }, settings, {
      env: { BIRDIE_SESSION_ID: 's-1' },
    });
    const argv = (await recorded())[0]!;
    expect(argv).not.toContain('--network=none');
    expect(argv).toEqual(
      expect.arrayContaining([
        `--volume=${work}:/work:rw`,
        '--memory=512m',
        '--cpus=1.5',
        '--pids-limit=64',
        '--env=BIRDIE_SESSION_ID',
      ]),
    );
    expect(argv.join(' ')).not.toContain('s-1');
    expect(argv.slice(-3)).toEqual([`ghcr.io/acme/tool@sha256:${'a'.repeat(64)}`, 'run', '--x=v']);
  });

  it('quotes group literal text into one word; a value is one word wherever it stands', async () => {
    await withFakeOnly(['podman']);
    await outcome(`container:img sh -c 'printf "%s|" "$@"' birdie {a} pre{a}post "x {b} y"`, {
      a: '1 2',
      b: '\'"',
    });
    const argv = (await recorded())[0]!;
    expect(argv.slice(argv.indexOf('img'))).toEqual([
      'img',
      'sh',
      '-c',
      'printf "%s|" "$@"',
      'birdie',
      '1 2',
      'pre1 2post',
      `x '" y`,
    ]);
  });

  it('the hostile corpus: every value reaches the command as exactly one argv word, and no option before the image changes', {
    timeout: budgetFor(hostileStrings('/x').length, 600),
  }, async () => {
    await withFakeOnly(['podman']);
    const values = hostileStrings(join(dir, 'ABSOLUTE-PWNED')).filter((v) => !v.includes('\0'));
    expect(values.length).toBeGreaterThanOrEqual(200);
    const entrypoint = resolveEntrypoint('container:img printf %s -- {v} x{v}', { skillDir: dir });
    let fixed: string[] | undefined;
    const seen: string[][] = [];
    // one call at a time: the fake numbers its calls in one folder
    for (const value of values) {
      await entrypoint.run({ v: value }, { cwd: work });
    }
    for (const argv of await recorded()) seen.push(argv);
    expect(seen.length).toBe(values.length);
    for (const [k, argv] of seen.entries()) {
      const image = argv.indexOf('img');
      fixed ??= argv.slice(0, image).map((a) => (a.startsWith('--name=') ? '--name=' : a));
      expect(argv.slice(0, image).map((a) => (a.startsWith('--name=') ? '--name=' : a))).toEqual(fixed);
      expect(argv.slice(image)).toEqual(['img', 'printf', '%s', '--', values[k], `x${values[k]}`]);
    }
    expect(existsSync(join(work, MARKER))).toBe(false);
  });

  it('a value that starts with "-" where the command would read an option is refused before the runtime starts', async () => {
    await withFakeOnly(['podman']);
    const refused = await outcome('container:img cat {path}', { path: '--version' });
    expect(refused).toMatchObject({ ok: false, code: 'bad-argument' });
    expect(refused.ok || refused.message).toContain('cat would read it as an option');
    expect(await recorded()).toEqual([]);
    // after --, glued to text, or a value the schema offers, it is data
    expect(await outcome('container:img cat -- {path}', { path: '--version' })).toMatchObject({ ok: true });
    expect(await outcome('container:img cat ./{path}', { path: '--version' })).toMatchObject({ ok: true });
    // find reads its operators anywhere, -- or not
    expect(await outcome('container:img find /work -- {dir}', { dir: '!' })).toMatchObject({
      code: 'bad-argument',
    });
    // NUL never reaches a process
    expect(await outcome('container:img echo {x}', { x: 'a\0b' })).toMatchObject({ code: 'bad-argument' });
  });

  // Review finding: the curl values a bash: template refuses (`-d @FILE`, `-T FILE`, `--variable %NAME`) reached curl
  // in a container: template unchecked, and read the container's files (the working folder is mounted there).
  it('a value curl would read as a file is refused before the runtime starts, as in a bash: template', async () => {
    await withFakeOnly(['podman']);
    for (const [template, value] of [
      ['container:img curl -d {x} http://h/', '@/work/.env'],
      ['container:img curl -sd{x} http://h/', '@/work/.env'],
      ['container:img curl -T ./{x} http://h/', '.env'],
      ['container:img curl -F note={x} http://h/', '</work/.env'],
      ['container:img curl --variable {x} --expand-data {{{{HOME}}}} http://h/', '%HOME'],
      ['container:img curl -w {x} -d {x} http://h/', '@/work/.env'],
    ] as const) {
      const refused = await outcome(template, { x: value });
      expect(refused, template).toMatchObject({ ok: false, code: 'bad-argument' });
      expect(refused.ok || refused.message).toContain('curl would read');
    }
    expect(await recorded()).toEqual([]);
    expect(await outcome('container:img curl -d note={x} http://h/', { x: '@/work/.env' })).toMatchObject({
      ok: true,
    });
    expect(await outcome("container:img curl -d {x} 'http://h/'", { x: 'hello' })).toMatchObject({
      ok: true,
    });
  });

  it('chooses podman, else docker; container_runtime picks one; a missing one is named', async () => {
    await withFakeOnly(['podman', 'docker']);
    await outcome('container:img true');
    configureContainerRuntime('docker');
    await outcome('container:img true');
    expect((await recorded()).map((argv) => argv[0])).toEqual(['podman', 'docker']);

    await withFakeOnly(['docker']);
    configureContainerRuntime('podman');
    expect(await outcome('container:img true')).toMatchObject({
      ok: false,
      code: 'container-runtime-missing',
      message: expect.stringMatching(
        /^the container runtime is set to podman, but podman is not on PATH; install one/,
      ),
    });
    configureContainerRuntime('auto');
    await withFakeOnly([]);
    expect(await outcome('container:img true')).toMatchObject({
      ok: false,
      code: 'container-runtime-missing',
      message: expect.stringMatching(/^no container runtime: neither podman nor docker is on PATH/),
    });
  });

  it('a missing image, a daemon that is down and other runtime failures are named; nothing is pulled', async () => {
    await withFakeOnly(['podman']);
    expect(await outcome('container:missing/image true')).toMatchObject({
      ok: false,
      code: 'container-image-missing',
      message: expect.stringContaining(
        "the image missing/image is not present in podman's local images, and images are never pulled implicitly: run `podman pull missing/image`",
      ),
    });
    expect(await outcome('container:daemon/down true')).toMatchObject({
      code: 'container-runtime-missing',
      message: expect.stringContaining('its daemon is not running or not reachable'),
    });
    expect(await outcome('container:broken/runtime true')).toMatchObject({
      code: 'container-failed',
      message: expect.stringContaining('crun: setrlimit'),
    });
    expect(await outcome('container:no/command nosuch')).toMatchObject({
      code: 'non-zero-exit',
      exitCode: 127,
      message: expect.stringContaining('(the command was not found in the image)'),
    });
    expect((await recorded()).every((argv) => argv.includes('--pull=never'))).toBe(true);
  });

  it('a timeout or cancel kills the client and removes the container by name', async () => {
    await withFakeOnly(['docker']);
    const timedOut = await outcome(
      'container:slow/image sleep 30',
      {},
      {},
      { timeoutMs: 500, killGraceMs: 200 },
    );
    expect(timedOut).toMatchObject({ ok: false, code: 'timeout' });
    const aborted = await outcome(
      'container:slow/image sleep 30',
      {},
      {},
      { signal: AbortSignal.timeout(300), killGraceMs: 200 },
    );
    expect(aborted).toMatchObject({ ok: false, code: 'aborted' });
    const argvs = await recorded();
    const names = argvs
      .filter((a) => a[1] === 'run')
      .map((a) => a.find((w) => w.startsWith('--name='))!.slice(7));
    // One removal by name per call, also when the cancel came before the client had recorded its `run` (a loaded
    // machine): removing a container that never started is harmless; missing one that did is not.
    const removals = argvs.filter((a) => a[1] === 'rm');
    expect(removals).toHaveLength(2);
    for (const removal of removals) expect(removal.slice(0, 3)).toEqual(['docker', 'rm', '--force']);
    const removed = removals.map((a) => a[3]);
    for (const name of names) expect(removed).toContain(name);
  });

  it('checkEntrypoint finds template and setting problems without running anything', async () => {
    await withFakeOnly(['podman']);
    const schema = { type: 'object', properties: { x: { type: 'string' } } };
    const check = (entrypoint: string, settings: ToolSettings = {}) =>
      checkEntrypoint(entrypoint, { skillDir: dir, schema, settings }).map(
        (p) => `${p.code}@${p.offset ?? '-'}`,
      );
    expect(check('container:alpine echo {x}')).toEqual([]);
    expect(check('container:{x} echo hi')).toEqual(['bad-entrypoint@10']);
    expect(check('container:-v/etc:/x alpine echo')).toEqual(['bad-entrypoint@10']);
    expect(check('container:alpine {x}')).toEqual(['bad-template@17']);
    expect(check('container:alpine')).toEqual(['bad-entrypoint@10']);
    expect(check("container:alpine echo 'oops")).toEqual(['bad-template@22']);
    expect(check('container:alpine echo {y}')).toEqual(['unknown-placeholder@22']);
    expect(check('container:alpine echo', { memory: 'lots', cpus: 0, pids: 1.5 })).toEqual([
      'bad-entrypoint@-',
      'bad-entrypoint@-',
      'bad-entrypoint@-',
    ]);
    expect(await recorded()).toEqual([]);
    expect(confinementOf('container:alpine echo')).toBe('container');
    expect(resolveEntrypoint('container:alpine echo', { skillDir: dir }).confinement).toBe('container');
  });
});

/*
 * Real runs. Whether they can happen is decided before the tests are collected, and the test's name says which
 * case this machine is in:
 * - a runtime says it works (`podman info` / `docker info` succeeds): the real tests run, and a failure to start a
 *   container fails them, with the runtime's message — a runtime that claims to work must work;
 * - no runtime says so (none installed, docker without its daemon, or BIRDIE_TEST_CONTAINER_RUNTIME=none on a
 *   machine whose runtime is known not to start containers): one test checks that a real call fails with the
 *   error naming what is missing. It does not pretend to be a real run.
 */
const realStatus = await containerRuntimeStatus({ probe: true });
const optedOut = process.env.BIRDIE_TEST_CONTAINER_RUNTIME === 'none';
const realRuntime = realStatus.works === true && !optedOut;
const noRunReason = optedOut
  ? 'BIRDIE_TEST_CONTAINER_RUNTIME=none'
  : (realStatus.reason ?? `${realStatus.runtime} info failed: ${realStatus.probeFailure}`);

// Only the case that applies is defined: nothing shows up as skipped, and nothing passes as a run it was not.
if (!realRuntime)
  describe(`container: NO real run on this machine (${noRunReason})`, () => {
    it('a real call fails with an error that names what is missing', async () => {
      const result = await outcome('container:docker.io/library/alpine:3.20 true');
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(['container-runtime-missing', 'container-image-missing', 'container-failed']).toContain(
        result.code,
      );
      if (!realStatus.runtime) expect(result.message).toMatch(/podman|docker/);
      else expect(result.message).toContain(realStatus.runtime);
    });
  });
else
  describe(`container: real runs with ${realStatus.runtime}`, { timeout: 180_000 }, () => {
    const image = 'localhost/birdie-test-rootfs:1';
    beforeAll(async () => {
      await importTestImage(realStatus.path!, image);
      const smoke = await outcome(`container:${image} /bin/bash -c 'echo up'`);
      if (!smoke.ok) {
        throw new Error(
          `${realStatus.runtime} says it works (\`${realStatus.runtime} info\` succeeded), but it could not start a container: ${smoke.code}: ${smoke.message}\n` +
            'On a machine known not to run containers (podman inside a sandbox), set BIRDIE_TEST_CONTAINER_RUNTIME=none to test the construction only.',
        );
      }
    });

    it('arguments arrive byte for byte; root and /work are read-only; no network', async () => {
      const values = hostileStrings(join(dir, 'ABSOLUTE-PWNED'))
        .filter((v) => !v.includes('\0'))
        .slice(0, 20);
      const entrypoint = resolveEntrypoint(
        `container:${image} /bin/bash -c 'printf "%s\\0" "$@"' birdie {v}`,
        {
          skillDir: dir,
        },
      );
      for (const value of values) {
        const result = await entrypoint.run({ v: value }, { cwd: work });
        expect(result.output).toBe(`${value}\0`);
      }
      const probe = await outcome(
        `container:${image} /bin/bash -c 'touch /x 2>&1; touch /work/y 2>&1; ls /sys/class/net'`,
      );
      expect(probe).toMatchObject({ ok: true });
      expect(probe.ok && probe.output).toMatch(/touch: cannot touch '\/x': Read-only file system/);
      expect(probe.ok && probe.output).toMatch(/touch: cannot touch '\/work\/y': Read-only file system/);
      expect(probe.ok && probe.output.trim().split('\n').pop()).toBe('lo');
    });

    it('writable: true lets it write /work; a cancelled container is gone', async () => {
      expect(await outcome(`container:${image} /bin/touch made`, {}, { writable: true })).toMatchObject({
        ok: true,
      });
      expect(existsSync(join(work, 'made'))).toBe(true);
      const cancelled = await outcome(
        `container:${image} /bin/sleep 60`,
        {},
        {},
        { signal: AbortSignal.timeout(2_000) },
      );
      expect(cancelled).toMatchObject({ code: 'aborted' });
      const left = execFileSync(
        realStatus.path!,
        ['ps', '-a', '--filter', 'name=birdie-', '--format', '{{.Names}}'],
        {
          encoding: 'utf8',
        },
      );
      expect(left.trim()).toBe('');
    });
  });

/** A small image made here, offline: bash and a few coreutils with their libraries, imported as a rootfs. */
async function importTestImage(runtime: string, image: string): Promise<void> {
  const root = await tempDir('birdie-rootfs-');
  const programs = ['/bin/bash', '/bin/touch', '/bin/sleep', '/bin/ls', '/bin/cat'];
  const files = new Set<string>();
  for (const program of programs) {
    files.add(program);
    const ldd = execFileSync('ldd', [program], { encoding: 'utf8' });
    for (const match of ldd.matchAll(/(\/\S+)/g)) files.add(match[1]!);
  }
  for (const file of files) {
    await mkdir(join(root, file, '..'), { recursive: true });
    execFileSync('cp', ['-L', file, join(root, file)]);
  }
  await chmod(root, 0o755);
  const tar = join(root, '..', `${root.split('/').pop()}.tar`);
  execFileSync('tar', ['-C', root, '-cf', tar, '.']);
  try {
    execFileSync(runtime, ['import', tar, image], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(
      `${runtime} says it works (\`${runtime} info\` succeeded), but importing a test image failed: ${String((error as { stderr?: unknown }).stderr ?? error)}`,
    );
  }
}
