import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTECTED_WORKSPACE_PATHS } from '../src/index.js';
import { tempDir } from './helpers.js';
import { call, exists, PLAIN, requireBubblewrap, SANDBOXED } from './sandbox-call.js';

/**
 * Issue 28.4: a sandboxed tool must not plant code that an ordinary program runs later, outside the sandbox, from the
 * working directory (git's config and hooks, direnv's .envrc, editor and hook-manager configs). Each case runs the
 * same tool unsandboxed first (the control: the plant works) and then sandboxed (it must not).
 */

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

async function repository(): Promise<string> {
  const dir = await tempDir('birdie-sandbox-repo-');
  git(dir, 'init', '-q');
  await writeFile(join(dir, 'README.md'), 'hello\n');
  return dir;
}

const FSMONITOR = `bash:printf '[core]\\n\\tfsmonitor = "touch PLANTED; false"\\n' >> .git/config`;

describe('a sandboxed tool cannot plant code in its working directory', { timeout: 60_000 }, () => {
  it(".git/config: core.fsmonitor, which the user's next git status runs", async () => {
    await requireBubblewrap();
    const control = await repository();
    expect(await call(FSMONITOR, PLAIN, {}, { cwd: control })).toMatchObject({ ok: true });
    git(control, 'status', '--short');
    expect(await exists(join(control, 'PLANTED'))).toBe(true);

    const work = await repository();
    const before = await readFile(join(work, '.git', 'config'), 'utf8');
    const confined = await call(FSMONITOR, SANDBOXED, {}, { cwd: work });
    expect(confined).toMatchObject({
      ok: false,
      code: 'non-zero-exit',
      output: expect.stringContaining('Read-only file system'),
    });
    expect(await readFile(join(work, '.git', 'config'), 'utf8')).toBe(before);
    git(work, 'status', '--short');
    expect(await exists(join(work, 'PLANTED'))).toBe(false);
  });

  it('.git/hooks/pre-commit', async () => {
    await requireBubblewrap();
    const template =
      'bash:printf "#!/bin/sh\\ntouch PLANTED\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit';
    const control = await repository();
    expect(await call(template, PLAIN, {}, { cwd: control })).toMatchObject({ ok: true });
    expect(await exists(join(control, '.git', 'hooks', 'pre-commit'))).toBe(true);

    const work = await repository();
    const confined = await call(template, SANDBOXED, {}, { cwd: work });
    expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
    expect(await exists(join(work, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('a .git that does not exist yet cannot be created (mkdir .git/hooks), and none is left behind', async () => {
    await requireBubblewrap();
    const template = 'bash:mkdir -p .git/hooks && echo "touch PLANTED" > .git/hooks/pre-commit';
    const control = await tempDir('birdie-sandbox-nogit-');
    expect(await call(template, PLAIN, {}, { cwd: control })).toMatchObject({ ok: true });
    expect(await exists(join(control, '.git', 'hooks', 'pre-commit'))).toBe(true);

    const work = await tempDir('birdie-sandbox-nogit-');
    await writeFile(join(work, 'notes.txt'), 'mine\n');
    const confined = await call(template, SANDBOXED, {}, { cwd: work });
    expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
    // The working directory is as it was: no .git, and no empty stand-in of it either.
    expect(await readdir(work)).toEqual(['notes.txt']);
  });

  it('.envrc (direnv runs it on cd) cannot be created, nor a .git file pointing elsewhere', async () => {
    await requireBubblewrap();
    const template = 'bash:echo "touch PLANTED" > .envrc';
    const control = await tempDir('birdie-sandbox-envrc-');
    expect(await call(template, PLAIN, {}, { cwd: control })).toMatchObject({ ok: true });
    expect(await readFile(join(control, '.envrc'), 'utf8')).toBe('touch PLANTED\n');

    const work = await tempDir('birdie-sandbox-envrc-');
    const confined = await call(template, SANDBOXED, {}, { cwd: work });
    expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
    const gitfile = await call('bash:echo "gitdir: elsewhere" > .git', SANDBOXED, {}, { cwd: work });
    expect(gitfile).toMatchObject({ ok: false, code: 'non-zero-exit' });
    expect(await readdir(work)).toEqual([]);
  });

  it('every path of the one list stays read-only, existing or not; other files are written as before', async () => {
    await requireBubblewrap();
    expect(PROTECTED_WORKSPACE_PATHS).toEqual(
      expect.arrayContaining(['.git', '.birdie', '.agents', '.vscode', '.idea', '.envrc', '.husky']),
    );
    const existing = await tempDir('birdie-sandbox-protected-');
    const absent = await tempDir('birdie-sandbox-protected-');
    for (const name of PROTECTED_WORKSPACE_PATHS) await mkdir(join(existing, name));
    for (const work of [existing, absent]) {
      const confined = await call(
        `bash:for p in ${PROTECTED_WORKSPACE_PATHS.join(' ')}; do (mkdir -p "$p" && echo x > "$p/planted") 2>/dev/null || (echo x > "$p") 2>/dev/null && echo "wrote $p"; done; echo ok > fine.txt; echo done`,
        SANDBOXED,
        {},
        { cwd: work },
      );
      expect(confined).toMatchObject({ ok: true, output: 'done\n' });
      expect(await readFile(join(work, 'fine.txt'), 'utf8')).toBe('ok\n');
    }
    expect((await readdir(absent)).sort()).toEqual(['fine.txt']);
    for (const name of PROTECTED_WORKSPACE_PATHS) expect(await readdir(join(existing, name))).toEqual([]);
  });

  it('git commit fails in the sandbox, and the error says why and what the user does instead', async () => {
    await requireBubblewrap();
    const work = await repository();
    const confined = await call(
      'bash:git add -A && git -c user.name=t -c user.email=t@example.com commit -qm change',
      SANDBOXED,
      {},
      { cwd: work },
    );
    expect(confined).toMatchObject({ ok: false, code: 'non-zero-exit' });
    const { message } = confined as { message: string };
    expect(message).toContain('read-only in the sandbox');
    expect(message).toMatch(/\.git/);
    expect(message).toMatch(/outside the sandbox/);
    // git itself, unsandboxed, still works in that folder.
    git(work, 'add', '-A');
    git(work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'change');
    expect(git(work, 'log', '--oneline')).toContain('change');
  });
});
