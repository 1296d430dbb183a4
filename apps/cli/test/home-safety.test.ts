import { spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox, scripted } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';

let box: Sandbox;
let terminal: Terminal | undefined;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  terminal?.kill();
  await box.cleanup();
});

/** The compiled CLI, killed after 15 s: a command that spins fails the test instead of hanging it. */
function birdie(args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...box.env, ...env },
    cwd: box.cwd,
    encoding: 'utf8',
    timeout: 45_000,
    killSignal: 'SIGKILL',
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

describe.runIf(process.platform === 'linux')(
  'BIRDIE_HOME where no folder can be made',
  { timeout: 60_000 },
  () => {
    it.each([[['sessions', 'list']], [['run', 'hi']], [['skills', 'new', 'demo']]])(
      'birdie %j ends at once with exit 2 and names the folder',
      (args) => {
        const result = birdie(args, { ...scripted('count.json'), BIRDIE_HOME: '/proc/birdie-no-such/home' });
        expect(result.signal).toBeNull();
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/^birdie: cannot create the folder \/proc\/birdie-no-such\/home\S*: /);
        expect(result.stderr).toContain('BIRDIE_HOME');
        expect(result.stderr).not.toContain('    at ');
      },
    );
  },
);

describe('first-run setup and a planted config.json symlink', { timeout: 60_000 }, () => {
  it('replaces the link with a new 0600 file and never writes the key through it', async () => {
    const target = join(box.dir.path, 'elsewhere.json');
    const config = join(box.home, 'config.json');
    await symlink(target, config);
    // Nothing listens there: the key cannot be checked, so it is saved with a warning (no network in tests).
    const t = new Terminal([], { env: { ...box.env, LLM_BASE_URL: 'http://127.0.0.1:9/v1' }, cwd: box.cwd });
    terminal = t;
    await t.expect('Which provider?');
    t.write('\r');
    await t.expect('Model');
    t.write('\r');
    await t.expect('Base URL (empty: https://api.openai.com/v1');
    t.write('\r'); // none: the vendor's own
    await t.expect('API key');
    t.write('sk-test-not-a-real-key\r');
    await t.expect('Could not check the key');
    await t.expect('(mode 0600)');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);

    await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
    const info = await lstat(config);
    expect(info.isFile()).toBe(true);
    expect(info.mode & 0o777).toBe(0o600);
    expect((await stat(box.home)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(config, 'utf8'))).toMatchObject({
      provider: { api_key: 'sk-test-not-a-real-key' },
    });
  });

  it('leaves the target of a link to an existing file untouched when config is written again', async () => {
    // Setup only runs when no config exists, so a link to a real file is read, never written: check that too.
    const target = join(box.dir.path, 'theirs.json');
    await writeFile(target, '{"vendor":"scripted","script":"nope.json"}\n');
    await symlink(target, join(box.home, 'config.json'));
    const result = birdie(['sessions', 'list'], {});
    expect(result.code).toBe(0);
    expect(await readFile(target, 'utf8')).toBe('{"vendor":"scripted","script":"nope.json"}\n');
  });
});

// Reported by an exploratory run (stop 68): `birdie config … --config /tmp/x.json` made /tmp mode 0700 (the folder of
// every file birdie writes privately was chmod-ed), and every other user of the machine lost /tmp.
describe('a config file given with --config in a folder that is not birdie’s', { timeout: 60_000 }, () => {
  it('is written 0600 and its folder keeps its mode', async () => {
    const shared = join(box.dir.path, 'shared');
    await mkdir(shared, { mode: 0o755 });
    await chmod(shared, 0o1777);
    const file = join(shared, 'team.json');
    const result = birdie(['config', 'set', 'context_window', '10000', '--config', file], {});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(shared)).mode & 0o7777).toBe(0o1777);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      settings: { context_window: 10000 },
    });
  });
});
