import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandboxStatus } from '@birdie/entrypoints';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { script } from './helpers/sessions.js';

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

async function requireBubblewrap(): Promise<void> {
  const status = await sandboxStatus();
  if (!status.available) throw new Error(`these tests need a working bubblewrap: ${status.reason}`);
}

// The helper's HOME is the working directory: birdie started in the user's home, its birdie folder at ~/.birdie.
let box: Sandbox;
let birdieHome: string;
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
  birdieHome = join(box.cwd, '.birdie');
  box.env.BIRDIE_HOME = birdieHome;
  await mkdir(birdieHome);
  await writeFile(
    join(birdieHome, 'config.json'),
    JSON.stringify({ provider: { vendor: 'openai', api_key: 'sk-THIS-IS-MY-SECRET-KEY' } }),
  );
});
afterEach(() => box.cleanup());

/** The built CLI, as the report ran it: its HOME (the tool's too) is the working directory. */
async function cli(argv: string[], env: NodeJS.ProcessEnv = {}, cwd = box.cwd) {
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
    (resolve) => {
      execFile(
        process.execPath,
        [BIN, ...argv],
        { env: { ...box.env, ...env }, cwd },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    },
  );
  return { code, stdout, stderr };
}
const runBash = (command: string) =>
  cli(['tool', 'run_bash', '--sandbox', '--args', JSON.stringify({ command })]);

describe('--sandbox started in the home folder', { timeout: 180_000 }, () => {
  it('~/.birdie (the API key in config.json, the store) is hidden from the tool, not bound read-only', async () => {
    await requireBubblewrap();
    const seen = await runBash('ls -a .birdie; echo ---; cat .birdie/config.json; echo done');
    expect(seen.stdout + seen.stderr).not.toContain('sk-THIS-IS-MY-SECRET-KEY');
    expect(seen.stdout.split('---')[0]).toBe('.\n..\n');
    expect(seen.stdout).toContain('done');

    // the same through the agent
    const env = await script(box.dir.path, 'k', [
      { tool_calls: [{ name: 'run_bash', args: { command: 'cat .birdie/config.json; ls -la .birdie' } }] },
      { text: 'done' },
    ]);
    const run = await cli(['run', '--sandbox', '--yes', '--enable', 'shell', '--json', 'go'], env);
    const ends = run.stdout.split('\n').filter((line) => line.includes('"tool-end"'));
    expect(ends).toHaveLength(1);
    expect(ends[0]).not.toContain('sk-THIS-IS-MY-SECRET-KEY');
    expect(ends[0]).not.toContain('birdie.db');
  });

  it("the home's dotfiles are not readable, and the start-up files that run code later cannot be changed or created", async () => {
    await requireBubblewrap();
    const home = box.cwd;
    await writeFile(join(home, '.gitconfig'), '[http]\n extraheader = AUTHORIZATION: bearer ghp_SECRET\n');
    await writeFile(join(home, '.bashrc'), '# rc\n');
    await writeFile(join(home, '.vault-token'), 'tok-VAULT\n');
    await writeFile(join(home, '.bash_history'), 'export AWS_SECRET=history-secret\n');
    await mkdir(join(home, 'notes'));
    const seen = await runBash(
      'cat .gitconfig .vault-token .bash_history; echo "touch /tmp/auto_planted" >> .bashrc; printf "[alias]\\n  st = !touch /tmp/auto_alias\\n" >> .gitconfig; echo "x" > .profile; echo "x" > .bash_profile; echo mine > notes/a.txt; echo planted',
    );
    const shown = seen.stdout + seen.stderr;
    expect(shown).not.toContain('ghp_SECRET');
    expect(shown).not.toContain('tok-VAULT');
    expect(shown).not.toContain('history-secret');
    expect(await readFile(join(home, '.bashrc'), 'utf8')).toBe('# rc\n');
    expect(await readFile(join(home, '.gitconfig'), 'utf8')).not.toContain('alias');
    expect(existsSync(join(home, '.profile'))).toBe(false);
    expect(existsSync(join(home, '.bash_profile'))).toBe(false);
    // the user's own files are the workspace: still writable
    expect(await readFile(join(home, 'notes', 'a.txt'), 'utf8')).toBe('mine\n');
  });

  it('write_file and append_file refuse .git/config, .git/hooks and .envrc under --sandbox, as run_bash does', async () => {
    await requireBubblewrap();
    const project = join(box.dir.path, 'proj');
    await mkdir(project);
    execFileSync('git', ['init', '-q'], { cwd: project });
    const before = await readFile(join(project, '.git', 'config'), 'utf8');
    const env = await script(box.dir.path, 's', [
      {
        tool_calls: [
          {
            name: 'run_bash',
            args: { command: "printf '[core]\\n\\tfsmonitor = touch /tmp/auto_fsm\\n' >> .git/config" },
          },
          {
            name: 'append_file',
            args: { path: '.git/config', content: '[core]\n\tfsmonitor = touch /tmp/x\n' },
          },
        ],
      },
      { text: 'done' },
    ]);
    const run = await cli(
      ['run', '--sandbox', '--yes', '--enable', 'shell', '--enable', 'filesystem', '--json', 'go'],
      env,
      project,
    );
    const ends = run.stdout.split('\n').filter((line) => line.includes('"tool-end"'));
    expect(ends).toHaveLength(2);
    for (const end of ends) expect(JSON.parse(end)).toMatchObject({ ok: false });
    expect(await readFile(join(project, '.git', 'config'), 'utf8')).toBe(before);

    const tool = (name: string, args: object, ...flags: string[]) =>
      cli(['tool', name, ...flags, '--args', JSON.stringify(args)], {}, project);
    for (const path of ['.git/hooks/pre-commit', '.envrc', '.vscode/tasks.json', '.git']) {
      const refused = await tool('write_file', { path, content: '#!/bin/sh\ntouch /tmp/x\n' }, '--sandbox');
      expect(refused.code).not.toBe(0);
      expect(refused.stdout + refused.stderr).toContain('read-only in the sandbox');
    }
    expect(existsSync(join(project, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(project, '.envrc'))).toBe(false);
    expect(existsSync(join(project, '.vscode'))).toBe(false);
    // the control: outside the sandbox the builtin writes there, and ordinary files stay writable under it
    expect(await tool('write_file', { path: '.envrc', content: 'x\n' })).toMatchObject({ code: 0 });
    expect(await tool('write_file', { path: 'a.txt', content: 'x\n' }, '--sandbox')).toMatchObject({
      code: 0,
    });
    await rm(join(project, '.envrc'));
  });

  it('read_file of ~/.birdie/config.json under --sandbox in the home is refused, as the sandbox hides it', async () => {
    await requireBubblewrap();
    const read = await cli([
      'tool',
      'read_file',
      '--sandbox',
      '--args',
      JSON.stringify({ path: '.birdie/config.json' }),
    ]);
    expect(read.stdout + read.stderr).not.toContain('sk-THIS-IS-MY-SECRET-KEY');
    expect(read.code).not.toBe(0);
    // nor do a search and a glob from the home walk into it
    const search = await cli([
      'tool',
      'search_files',
      '--sandbox',
      '--args',
      JSON.stringify({ pattern: 'sk-THIS' }),
    ]);
    expect(search.stdout + search.stderr).not.toContain('sk-THIS-IS-MY-SECRET-KEY');
    expect(search.stdout).toContain('No matches');
    const globbed = await cli([
      'tool',
      'glob',
      '--sandbox',
      '--args',
      JSON.stringify({ pattern: '**/*.json' }),
    ]);
    expect(globbed.stdout).not.toContain('config.json');
  });

  it("the approval question of a write to a hidden file does not show that file's text (its preview is refused)", async () => {
    await requireBubblewrap();
    const env = await script(box.dir.path, 'preview', [
      { tool_calls: [{ name: 'write_file', args: { path: '.birdie/config.json', content: 'x' } }] },
      { text: 'done' },
    ]);
    // No --yes: the question (with its preview) is made and refused unasked; it is still an event, and stored.
    const run = await cli(['run', '--sandbox', '--enable', 'filesystem', '--json', 'go'], env);
    const request = run.stdout.split('\n').find((line) => line.includes('"approval-request"'));
    expect(request).toBeDefined();
    expect(request).not.toContain('sk-THIS-IS-MY-SECRET-KEY');
    expect(request).toContain('the sandbox hides it');
  });
});
