import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureSandbox } from '../src/index.js';
import { tempDir } from './helpers.js';
import { call, PLAIN, requireBubblewrap, SANDBOXED } from './sandbox-call.js';

/**
 * Issue 28.5: the sandbox shows the working directory, the system's program and library folders and a private /tmp;
 * not the user's home, not a config file birdie read, not a Unix socket in some other folder. The folders of these
 * tests lie under /var/tmp, outside /tmp and /run, which the sandbox has always replaced.
 */

let persistent: string;
let work: string;
const servers: Server[] = [];

beforeAll(async () => {
  persistent = await mkdtemp(join('/var/tmp', 'birdie-sandbox-view-'));
  work = await tempDir('birdie-sandbox-view-work-');
});

afterAll(async () => {
  configureSandbox(undefined);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(persistent, { recursive: true, force: true });
});

async function listen(path: string): Promise<void> {
  const server = createServer((socket) => socket.end('hello from the host\n'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

/**
 * python3 connects to a Unix socket and prints the first line it gets. `@name` is an abstract socket, padded with NULs
 * to the whole address as Node binds it.
 */
const CONNECT = `bash:python3 -c 'import socket,sys; p=sys.argv[1]; s=socket.socket(socket.AF_UNIX); s.connect(("\\0" + p[1:]).ljust(108, "\\0") if p[0] == "@" else p); print(s.recv(100).decode().strip())' {path}`;

describe('what a sandboxed tool sees outside its working directory', { timeout: 60_000 }, () => {
  it('no Unix socket in a folder outside the workspace (an agent or database socket), though connect works through a read-only bind', async () => {
    await requireBubblewrap();
    const path = join(persistent, 'agent.sock');
    await listen(path);
    expect(await call(CONNECT, PLAIN, { path }, { cwd: work })).toMatchObject({
      ok: true,
      output: 'hello from the host\n',
    });
    const confined = await call(CONNECT, SANDBOXED, { path }, { cwd: work });
    expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
    expect(JSON.stringify(confined)).not.toContain('hello from the host');
  });

  it("no abstract Unix socket of the host while the network is off (it is the network namespace's); with network: true it is reachable", async () => {
    await requireBubblewrap();
    const name = `birdie-sandbox-abstract-${process.pid}`;
    await listen(`\0${name}`);
    const path = `@${name}`;
    expect(await call(CONNECT, PLAIN, { path }, { cwd: work })).toMatchObject({
      ok: true,
      output: 'hello from the host\n',
    });
    const confined = await call(CONNECT, SANDBOXED, { path }, { cwd: work });
    expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
    expect((confined as { output: string }).output).toContain('Connection refused');
    // The documented cost of network: true: the host's network namespace, and its abstract sockets with it.
    expect(await call(CONNECT, { sandbox: true, network: true }, { path }, { cwd: work })).toMatchObject({
      ok: true,
      output: 'hello from the host\n',
    });
  });

  it('not a config file passed by path (--config FILE) outside the workspace', async () => {
    await requireBubblewrap();
    const config = join(persistent, 'team', 'birdie.json');
    await mkdir(join(persistent, 'team'));
    await writeFile(config, '{"provider":{"api_key":"sk-team-secret"}}\n');
    const template = 'bash:cat {path}';
    expect(await call(template, PLAIN, { path: config }, { cwd: work })).toMatchObject({
      ok: true,
      output: expect.stringContaining('sk-team-secret'),
    });
    const confined = await call(template, SANDBOXED, { path: config }, { cwd: work });
    expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
    expect(JSON.stringify(confined)).not.toContain('sk-team-secret');
  });

  it('nor one inside the workspace, once the application names it with configureSandbox(…, { hide })', async () => {
    await requireBubblewrap();
    const project = await tempDir('birdie-sandbox-view-project-');
    const config = join(project, 'birdie.json');
    await writeFile(config, '{"provider":{"api_key":"sk-project-secret"}}\n');
    configureSandbox(undefined, { hide: [config] });
    try {
      const confined = await call(
        'bash:cat birdie.json; echo ok > other.txt; cat other.txt',
        SANDBOXED,
        {},
        {
          cwd: project,
        },
      );
      // stdout and stderr are two pipes merged as they arrive: under load cat's refusal may come before or after `ok`.
      expect(confined).toMatchObject({ ok: true });
      expect((confined as { output: string }).output.split('\n')).toContain('ok');
      expect(JSON.stringify(confined)).not.toContain('sk-project-secret');
    } finally {
      configureSandbox(undefined);
    }
  });

  it('not the home folder: ~/.ssh and the rest of it are out of sight; $HOME is a private, empty folder', async () => {
    await requireBubblewrap();
    const home = join(persistent, 'home');
    await mkdir(join(home, '.ssh'), { recursive: true });
    await writeFile(join(home, '.ssh', 'id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY----- secret\n');
    await writeFile(join(home, '.gitconfig'), '[user]\n\tname = someone\n');
    const env = { HOME: home };
    const template = 'bash:cat ~/.ssh/id_ed25519; ls -A ~';
    const control = await call(template, PLAIN, {}, { cwd: work, env });
    expect(control).toMatchObject({ ok: true, output: expect.stringContaining('PRIVATE KEY') });
    const confined = await call(template, SANDBOXED, {}, { cwd: work, env });
    expect(JSON.stringify(confined)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(confined)).not.toContain('.gitconfig');
    expect(
      await call('bash:echo cache > ~/.cache-probe && cat ~/.cache-probe', SANDBOXED, {}, { cwd: work, env }),
    ).toEqual({
      ok: true,
      output: 'cache\n',
      exitCode: 0,
    });
  });

  it('a working directory inside the home folder is shown, the rest of the home is not', async () => {
    await requireBubblewrap();
    const home = join(persistent, 'home2');
    const project = join(home, 'src', 'project');
    await mkdir(project, { recursive: true });
    await mkdir(join(home, '.ssh'));
    await writeFile(join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n');
    await writeFile(join(project, 'main.txt'), 'code\n');
    const confined = await call(
      'bash:cat main.txt; ls -A ~; ls -A ~/src',
      SANDBOXED,
      {},
      {
        cwd: project,
        env: { HOME: home },
      },
    );
    expect(confined).toEqual({ ok: true, output: 'code\nsrc\nproject\n', exitCode: 0 });
  });

  it('the system folders are there, read-only: programs run, /usr cannot be written', async () => {
    await requireBubblewrap();
    const confined = await call(
      'bash:git --version >/dev/null && python3 -c "print(1)" && test -r /etc/passwd && touch /usr/birdie-probe',
      SANDBOXED,
      {},
      { cwd: work },
    );
    expect(confined).toMatchObject({
      ok: false,
      code: 'non-zero-exit',
      output: expect.stringContaining('1\n'),
    });
    expect((confined as { output: string }).output).toContain('Read-only file system');
  });
});
