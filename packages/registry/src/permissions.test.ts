import { spawn } from 'node:child_process';
import { chmod, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { asUnprivileged } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { writeSkill } from '../test/skill-files.js';
import { loadRegistry } from './registry.js';

interface Outcome {
  skills: string[];
  messages: Array<{
    ruleId?: string;
    source?: string;
    fatal?: boolean | null;
    file?: string;
    reason: string;
  }>;
}

/**
 * Root reads everything, so when the tests run as root the load happens in a child process running as `nobody`
 * (against the built package, reachable even in a clone under a private folder); otherwise in this process. Either
 * way the permissions are real.
 */
async function loadAsUnprivileged(dirs: string[], cwd: string): Promise<Outcome> {
  if (process.getuid?.() !== 0) {
    const registry = await loadRegistry({ dirs });
    return {
      skills: registry.current().skills.map((s) => s.name),
      messages: registry.messages.map(({ ruleId, source, fatal, file, reason }) => ({
        ruleId,
        source,
        fatal,
        file,
        reason,
      })),
    };
  }
  const entry = new URL('../dist/index.js', import.meta.url).href;
  const script = `
    const { loadRegistry } = await import(process.argv[1]);
    const registry = await loadRegistry({ dirs: JSON.parse(process.argv[2]) });
    process.stdout.write(JSON.stringify({
      skills: registry.current().skills.map((s) => s.name),
      messages: registry.messages.map(({ ruleId, source, fatal, file, reason }) => ({ ruleId, source, fatal, file, reason })),
    }));`;
  const [command, ...args] = [
    ...asUnprivileged(),
    process.execPath,
    '--input-type=module',
    '-e',
    script,
    entry,
    JSON.stringify(dirs),
  ];
  const child = spawn(command!, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`child exited with ${code}: ${err}`);
  return JSON.parse(out) as Outcome;
}

describe('unreadable input', () => {
  it('warns about an unreadable skills folder and an unreadable SKILL.md, and loads the rest', async (t) => {
    const root = await tempDir(t);
    await chmod(root, 0o755);
    const skills = join(root, 'skills');
    await writeSkill(skills, { name: 'ok' });
    const secret = await writeSkill(skills, { name: 'secret' });
    await chmod(secret, 0o000);
    const lockedSkill = join(skills, 'locked');
    await writeSkill(skills, { name: 'locked' });
    await chmod(lockedSkill, 0o000);
    await symlink(join(root, 'some-file'), join(skills, 'link-to-file'));
    await writeFile(join(root, 'some-file'), 'not a folder');
    const closed = join(root, 'closed');
    await writeSkill(closed, { name: 'hidden' });
    await chmod(closed, 0o000);
    await chmod(root, 0o755);
    await chmod(skills, 0o755);
    t.onTestFinished(async () => {
      await chmod(closed, 0o755);
      await chmod(lockedSkill, 0o755);
    });

    const outcome = await loadAsUnprivileged([closed, skills], root);
    expect(outcome.skills).toEqual(['ok']);
    expect(outcome.messages).toEqual([
      {
        ruleId: 'dir-unreadable',
        source: 'registry',
        fatal: false,
        file: closed,
        reason: `Cannot read skills folder ${closed} (permission denied); it is skipped`,
      },
      expect.objectContaining({ file: secret, ruleId: 'unreadable-file', fatal: true }),
      {
        ruleId: 'dir-unreadable',
        source: 'registry',
        fatal: false,
        file: lockedSkill,
        reason: `Cannot read skill folder ${lockedSkill} (permission denied); it is skipped`,
      },
    ]);
  });
});
