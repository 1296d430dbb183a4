import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configureProcessGuard,
  configureSandbox,
  confinementOf,
  resolveEntrypoint,
  sandboxStatus,
} from '../src/index.js';
import { sleepMs, tempDir } from './helpers.js';
import { descendants, startParent, stillRunning } from './parent-process.js';
import { call, exists, type Outcome, PLAIN, requireBubblewrap, SANDBOXED } from './sandbox-call.js';

let work: string;
let outside: string;
/** Outside /tmp, which the sandbox replaces; not shown either (only the system folders are). */
let persistent: string;
let birdieHome: string;
let server: Server;
let port: number;
const savedHome = process.env.BIRDIE_HOME;

beforeAll(async () => {
  work = await tempDir('birdie-sandbox-work-');
  outside = await tempDir('birdie-sandbox-outside-');
  persistent = await mkdtemp(join('/var/tmp', 'birdie-sandbox-'));
  birdieHome = await tempDir('birdie-sandbox-home-');
  await writeFile(join(birdieHome, 'config.json'), '{"provider":{"api_key":"sk-secret"}}\n');
  process.env.BIRDIE_HOME = birdieHome;
  server = createServer((socket) => socket.end('hello from the host\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  if (savedHome === undefined) delete process.env.BIRDIE_HOME;
  else process.env.BIRDIE_HOME = savedHome;
  configureSandbox(undefined);
  configureProcessGuard(undefined);
  await new Promise((resolve) => server.close(resolve));
  await rm(persistent, { recursive: true, force: true });
});

describe('bubblewrap', () => {
  it('is installed and can start a sandbox here', async () => {
    await requireBubblewrap();
    const status = await sandboxStatus();
    expect(status).toMatchObject({
      mode: 'declared',
      available: true,
      version: expect.stringMatching(/^bubblewrap \d/),
    });
  });
});

describe('a sandboxed bash: tool, against the same tool unsandboxed (the control)', {
  timeout: 60_000,
}, () => {
  it('writes in its working directory, but nowhere else', async () => {
    await requireBubblewrap();
    const template = 'bash:echo in > inside.txt; echo out > {target}';
    // Neither /var/tmp nor a folder in the host's /tmp is seen at all (the system folders are, read-only: see
    // sandbox-view.test.ts)
    for (const [folder, reason] of [
      [persistent, 'No such file or directory'],
      [outside, 'No such file or directory'],
    ] as const) {
      const target = join(folder, 'escaped.txt');
      const confined = await call(template, SANDBOXED, { target }, { cwd: work });
      expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
      expect((confined as { output: string }).output).toContain(reason);
      expect(await readFile(join(work, 'inside.txt'), 'utf8')).toBe('in\n');
      expect(await exists(target)).toBe(false);

      const control = await call(template, PLAIN, { target }, { cwd: work });
      expect(control).toMatchObject({ ok: true });
      expect(await readFile(target, 'utf8')).toBe('out\n');
    }
  });

  it('has a private /tmp: what it writes there is gone, and the host /tmp is out of sight', async () => {
    await requireBubblewrap();
    const name = `birdie-sandbox-probe-${process.pid}`;
    const confined = await call(`bash:echo x > /tmp/${name} && ls /tmp`, SANDBOXED, {}, { cwd: work });
    // The working directory lies under /tmp here; only its own path is mounted into the private /tmp.
    expect(confined).toMatchObject({ ok: true });
    expect((confined as { output: string }).output.split('\n')).toEqual(
      expect.arrayContaining([name, work.split('/')[2]]),
    );
    expect(await exists(`/tmp/${name}`)).toBe(false);
    expect((confined as { output: string }).output).not.toContain(outside.split('/')[2]);
  });

  it('cannot read the birdie folder ($BIRDIE_HOME), whether the application or the tool environment names it', async () => {
    await requireBubblewrap();
    const template = 'bash:cat "$BIRDIE_HOME/config.json"; ls -A "$BIRDIE_HOME"';
    const env = { BIRDIE_HOME: birdieHome };
    const confined = await call(template, SANDBOXED, {}, { cwd: work, env });
    expect(confined).toMatchObject({
      ok: false,
      output: `cat: ${birdieHome}/config.json: No such file or directory\nls: cannot access '${birdieHome}': No such file or directory\n`,
    });

    const control = await call(template, PLAIN, {}, { cwd: work, env });
    expect(control).toMatchObject({ ok: true, output: expect.stringContaining('sk-secret') });
  });

  it('nor a folder the application names with configureSandbox(mode, { hide })', async () => {
    await requireBubblewrap();
    // (inside the working directory: elsewhere it is not shown anyway)
    const data = join(work, 'appdata');
    await mkdir(data);
    await writeFile(join(data, 'secret.txt'), 'app secret\n');
    expect(await call(`bash:cat ${data}/secret.txt`, SANDBOXED, {}, { cwd: work })).toMatchObject({
      output: 'app secret\n',
    });
    configureSandbox(undefined, { hide: [data] });
    try {
      const confined = await call(`bash:cat ${data}/secret.txt`, SANDBOXED, {}, { cwd: work });
      expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
      expect(JSON.stringify(confined)).not.toContain('app secret');
    } finally {
      configureSandbox(undefined);
    }
  });

  it('cannot read ~/.birdie either (HOME of the tool)', async () => {
    await requireBubblewrap();
    const home = await tempDir('birdie-sandbox-user-');
    await mkdir(join(home, '.birdie'));
    await writeFile(join(home, '.birdie', 'config.json'), 'sk-home-secret\n');
    const template = 'bash:cat ~/.birdie/config.json';
    const confined = await call(template, SANDBOXED, {}, { cwd: work, env: { HOME: home } });
    expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
    expect(JSON.stringify(confined)).not.toContain('sk-home-secret');
    expect(await call(template, PLAIN, {}, { cwd: work, env: { HOME: home } })).toMatchObject({
      ok: true,
      output: 'sk-home-secret\n',
    });
  });

  it('cannot open a socket to a loopback server of the host, unless the tool says network: true', async () => {
    await requireBubblewrap();
    const template = `bash:exec 3<>/dev/tcp/127.0.0.1/${port} && head -n 1 <&3`;
    const confined = await call(template, SANDBOXED, {}, { cwd: work });
    expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
    expect((confined as { output: string }).output).toContain('Connection refused');

    const control = await call(template, PLAIN, {}, { cwd: work });
    expect(control).toMatchObject({ ok: true, output: 'hello from the host\n' });
    const allowed = await call(template, { sandbox: true, network: true }, {}, { cwd: work });
    expect(allowed).toMatchObject({ ok: true, output: 'hello from the host\n' });
  });

  it('nor with network: true, once the application turned the network off (a server for its users)', async () => {
    await requireBubblewrap();
    const template = `bash:exec 3<>/dev/tcp/127.0.0.1/${port} && head -n 1 <&3`;
    configureSandbox('always', { network: false });
    try {
      const declared = await call(template, { network: true }, {}, { cwd: work });
      expect(declared).toMatchObject({ ok: false, code: 'non-zero-exit' });
      expect((declared as { output: string }).output).toContain('Connection refused');
    } finally {
      configureSandbox(undefined);
    }
    // The options are replaced by the next call: back to what the tool declares.
    const allowed = await call(template, { sandbox: true, network: true }, {}, { cwd: work });
    expect(allowed).toMatchObject({ ok: true, output: 'hello from the host\n' });
  });

  it('keeps no capability, even when birdie runs as root: / cannot be remounted read-write', async () => {
    await requireBubblewrap();
    const confined = await call(
      'bash:grep CapEff /proc/self/status; mount -o remount,bind,rw / 2>/dev/null && echo REMOUNTED; touch /etc/birdie-probe 2>/dev/null && echo WROTE; :',
      SANDBOXED,
      {},
      { cwd: work },
    );
    expect(confined).toEqual({ ok: true, output: 'CapEff:\t0000000000000000\n', exitCode: 0 });
    expect(await exists('/etc/birdie-probe')).toBe(false);
  });

  it('its background processes, setsid escapees included, die with the call, even without the process guard', async () => {
    await requireBubblewrap();
    const marker = join(work, 'late');
    const template = `bash:( sleep 1; touch {late} ) & setsid sleep 301 & sleep 0.3; echo started`;
    for (const mode of ['off', 'auto'] as const) {
      configureProcessGuard(mode);
      const confined = await call(template, SANDBOXED, { late: marker }, { cwd: work });
      expect(confined).toMatchObject({ ok: true, output: 'started\n' });
      expect(await processesRunning('sleep 301')).toEqual([]);
    }
    await sleepMs(1_500);
    expect(await exists(marker)).toBe(false);

    // the control: unsandboxed and unguarded, the escapee lives on
    configureProcessGuard('off');
    const control = await call('bash:setsid sleep 302 & sleep 0.3; echo started', PLAIN, {}, { cwd: work });
    configureProcessGuard(undefined);
    expect(control).toMatchObject({ ok: true });
    const escaped = await processesRunning('sleep 302');
    expect(escaped.length).toBe(1);
    for (const pid of escaped) process.kill(pid, 'SIGKILL');
  });

  it('a timeout ends the sandbox and everything in it', async () => {
    await requireBubblewrap();
    const confined = await call(
      "bash:trap '' TERM; setsid sleep 303 & echo before; sleep 300",
      SANDBOXED,
      {},
      { cwd: work, timeoutMs: 800, killGraceMs: 200 },
    );
    expect(confined).toMatchObject({ ok: false, code: 'timeout', output: 'before\n' });
    expect(await processesRunning('sleep 303')).toEqual([]);
  });
});

describe('the sandbox and the process guard together', { timeout: 60_000 }, () => {
  it('the same result with the guard off and on; $$ is the pid the sandbox shows (bubblewrap is its init, pid 1)', async () => {
    await requireBubblewrap();
    const results: Outcome[] = [];
    for (const mode of ['off', 'auto'] as const) {
      configureProcessGuard(mode);
      results.push(
        await call(
          "bash:echo $$; cut -d' ' -f4 /proc/self/stat; cut -d' ' -f4 /proc/$$/stat; pwd; :",
          SANDBOXED,
          {},
          { cwd: work },
        ),
      );
    }
    configureProcessGuard(undefined);
    const [off, guarded] = results;
    expect(guarded).toEqual(off);
    const [self, parentOfCut, parentOfShell, pwd] = (off as { output: string }).output.trim().split('\n');
    expect(parentOfCut).toBe(self);
    expect(parentOfShell).toBe('1');
    expect(pwd).toBe(work);
  });

  it('a command killed by a signal ends with 128 + N, and the message says what that means', async () => {
    await requireBubblewrap();
    for (const mode of ['off', 'auto'] as const) {
      configureProcessGuard(mode);
      const killed = await call('bash:kill -TERM $$', SANDBOXED, {}, { cwd: work });
      expect(killed).toMatchObject({
        ok: false,
        code: 'non-zero-exit',
        exitCode: 143,
        message: expect.stringContaining(
          'exited with code 143 (in the sandbox, what a command killed by SIGTERM ends with)',
        ),
      });
      const exit = await call('bash:exit 7', SANDBOXED, {}, { cwd: work });
      expect(exit).toMatchObject({
        ok: false,
        exitCode: 7,
        message: 'command exited with code 7\n(no output)',
      });
    }
    configureProcessGuard(undefined);
  });

  it('when birdie is SIGKILLed, the sandboxed tree dies with it (guard on and off)', async () => {
    await requireBubblewrap();
    for (const guard of ['auto', 'off']) {
      const dir = await tempDir('birdie-sandbox-parent-');
      await chmod(dir, 0o777);
      const ready = join(dir, 'ready');
      const body = `
const ep = entrypoints.resolveEntrypoint('bash:( sleep 1.5; touch late ) & setsid sleep 304 & echo ready > {ready}; wait', { skillDir: process.cwd(), settings: { sandbox: true } });
ep.run({ ready: ${JSON.stringify(ready)} }, { timeoutMs: 120000 }).catch((e) => console.log('failed ' + e.code + ' ' + e.message));
console.log('started');
setInterval(() => {}, 1000);
`;
      const parent = await startParent(dir, body, { env: { BIRDIE_PROCESS_GUARD: guard } });
      await parent.waitFor('started');
      const deadline = Date.now() + 15_000;
      while (!(await exists(ready)) && Date.now() < deadline) await sleepMs(20);
      expect(await exists(ready), parent.output()).toBe(true);
      const tree = await descendants(parent.child.pid!);
      parent.child.kill('SIGKILL');
      await parent.exited();
      await sleepMs(2_000);
      const survivors = await stillRunning(tree);
      for (const pid of survivors) process.kill(pid, 'SIGKILL');
      expect({ guard, survivors }).toEqual({ guard, survivors: [] });
      expect(await exists(join(dir, 'late'))).toBe(false);
    }
  });
});

describe('python: under the sandbox', { timeout: 60_000 }, () => {
  it('imports its module from the skill folder, writes in the working directory, nowhere else', async () => {
    await requireBubblewrap();
    const skill = await tempDir('birdie-sandbox-skill-');
    await writeFile(
      join(skill, 'tools.py'),
      `import os
def write(target):
    with open('here.txt', 'w') as f:
        f.write('here')
    try:
        with open(target, 'w') as f:
            f.write('escaped')
        return 'escaped'
    except OSError as e:
        return 'refused: ' + e.strerror
`,
    );
    const target = join(persistent, 'python-escaped.txt');
    const confined = await call('python:tools.write', SANDBOXED, { target }, { cwd: work }, skill);
    expect(confined).toEqual({ ok: true, output: 'refused: No such file or directory', exitCode: 0 });
    expect(await readFile(join(work, 'here.txt'), 'utf8')).toBe('here');
    expect(await call('python:tools.write', PLAIN, { target }, { cwd: work }, skill)).toMatchObject({
      output: 'escaped',
    });
  });

  it('a skill folder inside the birdie folder (a user skill) stays readable; the rest of the folder does not', async () => {
    await requireBubblewrap();
    const skill = join(birdieHome, 'skills', 'reader');
    await mkdir(skill, { recursive: true });
    await writeFile(
      join(skill, 'tools.py'),
      `import os
def look(home):
    return sorted(os.listdir(home)) + sorted(os.listdir(os.path.join(home, 'skills')))
`,
    );
    const confined = await call('python:tools.look', SANDBOXED, { home: birdieHome }, { cwd: work }, skill);
    expect(confined).toEqual({ ok: true, output: '[\n  "skills",\n  "reader"\n]', exitCode: 0 });
  });
});

describe('when the sandbox applies', { timeout: 60_000 }, () => {
  it("configureSandbox('always') confines every bash: and python: call, the raw {command} included", async () => {
    await requireBubblewrap();
    const target = join(outside, 'always.txt');
    const raw = resolveEntrypoint('bash:{command}', { skillDir: work });
    expect(confinementOf(raw)).toBe('none');
    configureSandbox('always');
    try {
      expect(confinementOf(raw)).toBe('sandbox');
      expect(confinementOf('python:tools.x')).toBe('sandbox');
      expect(confinementOf('node:tools.mjs#x')).toBe('sandbox'); // a node: tool not of the application's own folders
      expect(confinementOf('http:get https://example.com/')).toBe('none');
      const error = await raw.run({ command: `echo x > ${target}` }, { cwd: work }).catch((e: unknown) => e);
      // (outside lies under the host's /tmp, which the sandbox replaces with its own)
      expect(error).toMatchObject({
        code: 'non-zero-exit',
        output: expect.stringContaining('No such file'),
      });
      expect(await exists(target)).toBe(false);
      expect((await sandboxStatus()).mode).toBe('always');
    } finally {
      configureSandbox(undefined);
    }
    // per call, and per tool
    expect(confinementOf(raw, undefined, { sandbox: true })).toBe('sandbox');
    expect(confinementOf('bash:ls', { sandbox: true })).toBe('sandbox');
    expect(resolveEntrypoint('bash:ls', { skillDir: work, settings: { sandbox: true } }).confinement).toBe(
      'sandbox',
    );
    const perCall = await raw
      .run({ command: `echo x > ${target}` }, { cwd: work, sandbox: true })
      .catch((e) => e);
    expect(perCall).toMatchObject({ code: 'non-zero-exit' });
    expect(await exists(target)).toBe(false);
  });

  it('BIRDIE_SANDBOX=always turns it on for a process; an unknown value warns and keeps declared', async () => {
    const saved = process.env.BIRDIE_SANDBOX;
    try {
      process.env.BIRDIE_SANDBOX = 'always';
      expect((await sandboxStatus()).mode).toBe('always');
      expect(confinementOf('bash:ls')).toBe('sandbox');
      process.env.BIRDIE_SANDBOX = 'sometimes';
      expect(await sandboxStatus()).toMatchObject({
        mode: 'declared',
        warning: 'BIRDIE_SANDBOX="sometimes" is not one of declared, always; using declared',
      });
    } finally {
      if (saved === undefined) delete process.env.BIRDIE_SANDBOX;
      else process.env.BIRDIE_SANDBOX = saved;
    }
  });

  it('a working directory that is the birdie folder itself is refused; nothing runs', async () => {
    await requireBubblewrap();
    const confined = await call('bash:touch ran', SANDBOXED, {}, { cwd: birdieHome });
    expect(confined).toMatchObject({ ok: false, code: 'sandbox-unavailable' });
    expect((confined as { message: string }).message).toContain('it is the birdie folder');
    expect(await exists(join(birdieHome, 'ran'))).toBe(false);
  });

  it('a working directory inside the birdie folder is writable; its siblings stay hidden', async () => {
    await requireBubblewrap();
    const session = join(birdieHome, 'sessions', 's1');
    await mkdir(session, { recursive: true });
    const confined = await call(
      'bash:echo plan > plan.txt; ls -A "$BIRDIE_HOME"',
      SANDBOXED,
      {},
      {
        cwd: session,
        env: { BIRDIE_HOME: birdieHome },
      },
    );
    expect(confined).toEqual({ ok: true, output: 'sessions\n', exitCode: 0 });
    expect(await readFile(join(session, 'plan.txt'), 'utf8')).toBe('plan\n');
  });
});

describe('without bubblewrap', { timeout: 60_000 }, () => {
  it('a sandboxed tool fails with sandbox-unavailable, says how to install it, and never runs unconfined', async () => {
    const bin = await tempDir('birdie-sandbox-nobwrap-');
    for (const name of ['bash', 'sh', 'perl', 'touch']) {
      const { execFileSync } = await import('node:child_process');
      await symlink(
        execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim(),
        join(bin, name),
      );
    }
    const saved = process.env.PATH;
    process.env.PATH = bin;
    try {
      const status = await sandboxStatus();
      expect(status).toMatchObject({
        available: false,
        reason: expect.stringContaining('apt-get install bubblewrap'),
      });
      const confined = await call('bash:touch ran', SANDBOXED, {}, { cwd: work, env: { PATH: bin } });
      expect(confined).toMatchObject({ ok: false, code: 'sandbox-unavailable' });
      expect((confined as { message: string }).message).toMatch(
        /command was not started: it must run in the sandbox, and bubblewrap \(bwrap\) was not found on PATH; install bubblewrap: `sudo apt-get install bubblewrap`/,
      );
      expect(await exists(join(work, 'ran'))).toBe(false);
      // the same tool without the sandbox runs: the refusal is the sandbox's, not the PATH's
      expect(await call('bash:touch ran', PLAIN, {}, { cwd: work, env: { PATH: bin } })).toMatchObject({
        ok: true,
      });
    } finally {
      process.env.PATH = saved;
    }
  });
});

/** Host pids of living processes whose command line is exactly `command` (a unique sleep duration marks each). */
async function processesRunning(command: string): Promise<number[]> {
  const { readdir } = await import('node:fs/promises');
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').filter(Boolean).join(' ') !== command) continue;
    const alive = await stillRunning([Number(entry)]);
    found.push(...alive);
  }
  return found;
}
