import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NOBODY } from '@birdie/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { configureProcessGuard, resolveEntrypoint } from '../src/index.js';
import { sleepMs, tempDir } from './helpers.js';
import { descendants, type Parent, startParent, stillRunning } from './parent-process.js';

const isRoot = process.geteuid?.() === 0;
/** As root (CI), the non-root case runs as `nobody`; as anyone else it runs as that user. */
const otherUser = isRoot ? 'nobody' : undefined;

async function sharedDir(): Promise<string> {
  const dir = await tempDir('birdie-guard-');
  await chmod(dir, 0o777); // the parent may run as nobody
  return dir;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function waitForFile(path: string, ms = 15_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.endsWith('\n')) return text;
    if (Date.now() > deadline) throw new Error(`${path} never appeared`);
    await sleepMs(20);
  }
}

/** A birdie stand-in: starts one tool call, prints the guard status, and waits. */
function parentBody(entrypoint: string, args: Record<string, unknown>): string {
  return `
const status = await entrypoints.processGuardStatus();
console.log('guard ' + JSON.stringify(status));
const ep = entrypoints.resolveEntrypoint(${JSON.stringify(entrypoint)}, { skillDir: process.cwd() });
ep.run(${JSON.stringify(args)}, { timeoutMs: 120000 }).then(
  (r) => console.log('done ' + JSON.stringify(r)),
  (e) => console.log('failed ' + e.code + ' ' + e.message),
);
setInterval(() => {}, 1000);
`;
}

interface KillOutcome {
  status: { active: boolean; reason?: string };
  /** Processes below the parent just before it was killed. */
  tree: number[];
  /** Those still able to run 1 s after the kill. */
  survivors: number[];
  /** Whether the tool's delayed side effect happened. */
  effect: boolean;
}

/** Starts the parent, waits for the tool to report `ready`, SIGKILLs the parent, and looks at what is left. */
async function killParentDuringTool(
  dir: string,
  entrypoint: string,
  args: Record<string, unknown>,
  options: { env?: Record<string, string>; unprivileged?: boolean; effectAfterMs: number },
): Promise<KillOutcome> {
  const parent: Parent = await startParent(dir, parentBody(entrypoint, args), options);
  let tree: number[] = [];
  try {
    const printed = await parent.waitFor('guard ');
    const status = JSON.parse(/guard (.*)/.exec(printed)![1]!);
    await waitForFile(String(args.ready));
    const started = Date.now();
    tree = await descendants(parent.child.pid!);
    parent.child.kill('SIGKILL');
    await parent.exited();
    await sleepMs(1_000);
    const survivors = await stillRunning(tree);
    // the effect was due `effectAfterMs` after the tool got going; give it ample time to show up
    await sleepMs(Math.max(0, started + options.effectAfterMs + 1_000 - Date.now()));
    return { status, tree, survivors, effect: await exists(String(args.effect)) };
  } finally {
    for (const pid of await stillRunning(tree)) {
      try {
        process.kill(pid, 'SIGKILL'); // only what the control case leaves behind
      } catch {}
    }
  }
}

const BACKGROUND = 'bash:sleep 40 & sleep 41 & echo ready > {ready}; wait';
const STUBBORN =
  "bash:trap '' TERM INT HUP; ( sleep 1.5; touch {effect} ) & setsid sleep 42 & sleep 41 & echo ready > {ready}; wait";

describe('tool process trees die with their parent, even on SIGKILL', { timeout: 60_000 }, () => {
  it('bash: `sleep 40 & sleep 41 & wait`: no process of the tree survives', async () => {
    const dir = await sharedDir();
    const outcome = await killParentDuringTool(
      dir,
      BACKGROUND,
      { ready: join(dir, 'ready'), effect: join(dir, 'effect') },
      { effectAfterMs: 0 },
    );
    expect(outcome.status.active).toBe(true);
    expect(outcome.tree.length).toBeGreaterThanOrEqual(4); // the guard's helper, bash and both sleeps
    expect(outcome.survivors).toEqual([]);
  });

  it('bash: a tree that ignores TERM/INT/HUP and calls setsid dies too, and its delayed effect never lands', async () => {
    const dir = await sharedDir();
    const outcome = await killParentDuringTool(
      dir,
      STUBBORN,
      { ready: join(dir, 'ready'), effect: join(dir, 'effect') },
      { effectAfterMs: 1_500 },
    );
    expect(outcome.status.active).toBe(true);
    expect(outcome.survivors).toEqual([]);
    expect(outcome.effect).toBe(false);
  });

  it('python: the interpreter and the subprocess it started die, and the effect never lands', async () => {
    const dir = await sharedDir();
    await writeFile(
      join(dir, 'slow.py'),
      `import subprocess, time
def run(ready, effect):
    subprocess.Popen(['sh', '-c', 'sleep 1.5; touch "$0"', effect], start_new_session=True)
    with open(ready, 'w') as f:
        f.write('ready\\n')
    time.sleep(40)
`,
    );
    await chmod(join(dir, 'slow.py'), 0o644);
    const outcome = await killParentDuringTool(
      dir,
      'python:slow.run',
      { ready: join(dir, 'ready'), effect: join(dir, 'effect') },
      { effectAfterMs: 1_500 },
    );
    expect(outcome.status.active).toBe(true);
    expect(outcome.survivors).toEqual([]);
    expect(outcome.effect).toBe(false);
  });

  it(`as a non-root user (${otherUser ?? 'this user'}) too: the guard needs no privilege`, async () => {
    const dir = await sharedDir();
    const outcome = await killParentDuringTool(
      dir,
      STUBBORN,
      { ready: join(dir, 'ready'), effect: join(dir, 'effect') },
      { effectAfterMs: 1_500, unprivileged: true },
    );
    expect(outcome.status.active).toBe(true);
    expect(outcome.survivors).toEqual([]);
    expect(outcome.effect).toBe(false);
  });

  it('control: with BIRDIE_PROCESS_GUARD=off the same tree survives the SIGKILL and its effect lands', async () => {
    const dir = await sharedDir();
    const outcome = await killParentDuringTool(
      dir,
      STUBBORN,
      { ready: join(dir, 'ready'), effect: join(dir, 'effect') },
      { effectAfterMs: 1_500, env: { BIRDIE_PROCESS_GUARD: 'off' } },
    );
    expect(outcome.status).toMatchObject({ active: false, reason: 'BIRDIE_PROCESS_GUARD=off' });
    expect(outcome.survivors.length).toBeGreaterThan(0);
    expect(outcome.effect).toBe(true);
  });
});

describe('what a call leaves behind', { timeout: 60_000 }, () => {
  afterAll(() => configureProcessGuard(undefined));

  // (each escapee gets 0.3 s to leave the group before the call ends; else the group's TERM would catch it)
  it('a setsid escapee dies with the call that started it, when the call ends or times out', async () => {
    configureProcessGuard('require');
    const dir = await sharedDir();
    const done = join(dir, 'done.pid');
    const ended = await resolveEntrypoint('bash:setsid sleep 300 & sleep 0.3; echo $! > {f}; echo done', {
      skillDir: dir,
    }).run({ f: done });
    expect(ended.output).toBe('done\n');
    expect(await stillRunning([Number(await waitForFile(done))])).toEqual([]);

    const late = join(dir, 'late.pid');
    const error = await resolveEntrypoint(
      "bash:trap '' TERM; setsid sleep 300 & sleep 0.3; echo $! > {f}; sleep 300",
      {
        skillDir: dir,
      },
    )
      .run({ f: late }, { timeoutMs: 1_000, killGraceMs: 200 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout' });
    expect(await stillRunning([Number(await waitForFile(late))])).toEqual([]);
  });

  it('control: without the guard the escapee outlives the call', async () => {
    configureProcessGuard('off');
    const dir = await sharedDir();
    const file = join(dir, 'escaped.pid');
    await resolveEntrypoint('bash:setsid sleep 300 & sleep 0.3; echo $! > {f}', { skillDir: dir }).run({
      f: file,
    });
    const escapee = Number(await waitForFile(file));
    expect(await stillRunning([escapee])).toEqual([escapee]);
    process.kill(escapee, 'SIGKILL');
  });
});

describe('the guard as the tool sees it', { timeout: 60_000 }, () => {
  it(`the tool runs as the user, with its pid as the user's process list shows it (${otherUser ?? 'this user'})`, async () => {
    const dir = await sharedDir();
    const body = `
const status = await entrypoints.processGuardStatus();
const out = await entrypoints.resolveEntrypoint("bash:id -u; id -g; touch {f}; stat -c %u:%g {f}; echo $$; cut -d' ' -f4 /proc/self/stat; :", { skillDir: process.cwd() }).run({ f: ${JSON.stringify(join(dir, 'owned'))} });
console.log('status ' + JSON.stringify(status));
console.log('out ' + JSON.stringify(out.output));
process.exit(0);
`;
    const parent = await startParent(dir, body, { unprivileged: true });
    const printed = await parent.waitFor('out ');
    const status = JSON.parse(/status (.*)/.exec(printed)![1]!);
    const output = JSON.parse(/out (.*)/.exec(printed)![1]!);
    const uid = otherUser ? NOBODY : process.getuid!();
    const gid = otherUser ? NOBODY : process.getgid!();
    const [u, g, owner, self, parentOfCut] = output.trim().split('\n');
    expect([u, g, owner]).toEqual([String(uid), String(gid), `${uid}:${gid}`]);
    expect(parentOfCut).toBe(self); // $$ is the pid /proc knows (no namespace renumbers it)
    expect(status.active).toBe(true);
  });

  it('BIRDIE_PROCESS_GUARD=require refuses to start a child when the guard cannot run; auto falls back and says why', async () => {
    const dir = await sharedDir();
    // A PATH with bash but without perl.
    const bin = join(dir, 'bin');
    await mkdir(bin);
    for (const name of ['bash', 'sh', 'sleep']) {
      await symlink(
        execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim(),
        join(bin, name),
      );
    }
    const body = `
const status = await entrypoints.processGuardStatus();
console.log('status ' + JSON.stringify(status));
const result = await entrypoints.resolveEntrypoint('bash:echo ran', { skillDir: process.cwd() }).run({}).then(
  (r) => 'ok ' + r.output.trim(),
  (e) => 'error ' + e.code + ': ' + e.message,
);
console.log('result ' + result);
process.exit(0);
`;
    const required = await startParent(dir, body, { env: { PATH: bin, BIRDIE_PROCESS_GUARD: 'require' } });
    const text = await required.waitFor('result ');
    expect(JSON.parse(/status (.*)/.exec(text)![1]!)).toMatchObject({
      mode: 'require',
      active: false,
      reason: 'perl was not found on PATH (Debian and Ubuntu always have it: perl-base)',
    });
    expect(text).toMatch(
      /result error process-guard-unavailable: command was not started: BIRDIE_PROCESS_GUARD=require, but perl was not found/,
    );

    const auto = await startParent(dir, body, { env: { PATH: bin, BIRDIE_PROCESS_GUARD: 'bogus' } });
    const autoText = await auto.waitFor('result ');
    expect(JSON.parse(/status (.*)/.exec(autoText)![1]!)).toMatchObject({
      mode: 'auto',
      active: false,
      warning: 'BIRDIE_PROCESS_GUARD="bogus" is not one of auto, off, require; using auto',
    });
    expect(autoText).toContain('result ok ran');
  });
});
