import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverSkills, loadSkillFile, MAX_RESOURCE_DEPTH, MAX_RESOURCES } from '../src/index.js';
import { brief, skillText, tempTree } from './helpers.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function tree(files: Record<string, string | Buffer>) {
  const made = await tempTree(files);
  cleanup = made.cleanup;
  return made.root;
}

describe('discoverSkills', () => {
  it('finds SKILL.md, SKILL.MD and skill.md in immediate sub-folders only, in folder order', async () => {
    const root = await tree({
      'zeta/SKILL.md': skillText('zeta'),
      'alpha/SKILL.MD': skillText('alpha'),
      'mid/skill.md': skillText('mid'),
      'not-a-skill/README.md': '# nothing',
      'nested/deeper/SKILL.md': skillText('deeper'),
      '.hidden/SKILL.md': skillText('hidden'),
      'SKILL.md': skillText('top'),
    });
    const { skills, messages } = await discoverSkills(root);
    // SKILL.MD loads, with a warning: the standard (and other clients) look for SKILL.md.
    expect(messages.map((m) => `${m.file}:${m.line}:${m.column} ${m.ruleId}`)).toEqual([
      `${join(root, 'alpha', 'SKILL.MD')}:1:1 skill-file-name`,
    ]);
    expect(messages[0]!.fatal).toBe(false);
    expect(skills.map((s) => s.name)).toEqual(['alpha', 'mid', 'zeta']);
    expect(skills[0]!.file).toBe(join(root, 'alpha', 'SKILL.MD'));
    expect(skills[0]!.dir).toBe(join(root, 'alpha'));
  });

  it('lists resources relative, sorted and /-separated, without SKILL.md, dotfiles or node_modules', async () => {
    const root = await tree({
      'docs/SKILL.md': skillText('docs'),
      'docs/reference/b.md': 'b',
      'docs/reference/a.md': 'a',
      'docs/LICENSE.txt': 'l',
      'docs/scripts/deep/er/run.py': 'p',
      'docs/.env': 'SECRET=1',
      'docs/.git/config': 'x',
      'docs/node_modules/pkg/index.js': 'x',
    });
    const { skills } = await discoverSkills(root);
    expect(skills[0]!.resources).toEqual([
      'LICENSE.txt',
      'reference/a.md',
      'reference/b.md',
      'scripts/deep/er/run.py',
    ]);
  });

  it('lists a symbolic link to a file, never a symbolically linked folder, a dangling link or a device', async () => {
    const root = await tree({
      'linked/SKILL.md': skillText('linked'),
      'linked/real/a.md': 'a',
      'linked/notes.md': 'n',
      'elsewhere/outside.md': 'o',
    });
    const skill = join(root, 'linked');
    await symlink(join(skill, 'real'), join(skill, 'folder-link'));
    await symlink(join(skill, 'notes.md'), join(skill, 'file-link.md'));
    await symlink(join(root, 'elsewhere'), join(skill, 'outside-folder'));
    await symlink(join(skill, 'missing.md'), join(skill, 'dangling.md'));
    await symlink(skill, join(skill, 'real', 'loop'));
    await symlink('/dev/null', join(skill, 'device'));
    const { skills, messages } = await discoverSkills(root);
    expect(messages).toEqual([]);
    expect(skills.find((s) => s.name === 'linked')!.resources).toEqual([
      'file-link.md',
      'notes.md',
      'real/a.md',
    ]);
  });

  it('caps the resource listing by count and depth, with a warning', async () => {
    const files: Record<string, string> = { 'many/SKILL.md': skillText('many') };
    for (let i = 0; i < MAX_RESOURCES + 5; i++) files[`many/data/f${String(i).padStart(4, '0')}.txt`] = 'x';
    files[`deep/SKILL.md`] = skillText('deep');
    files[`deep/${Array.from({ length: MAX_RESOURCE_DEPTH + 1 }, (_, i) => `d${i}`).join('/')}/x.txt`] = 'x';
    files['deep/top.txt'] = 'x';
    const root = await tree(files);
    const { skills, messages } = await discoverSkills(root);
    expect(messages.map((m) => [m.file, brief(m)])).toEqual([
      [join(root, 'deep', 'SKILL.md'), '1:1 resources-capped warning'],
      [join(root, 'many', 'SKILL.md'), '1:1 resources-capped warning'],
    ]);
    const [deep, many] = skills;
    expect(many!.resources).toHaveLength(MAX_RESOURCES);
    expect(deep!.resources).toEqual(['top.txt']);
  });

  it('keeps loading the other skills when one is broken', async () => {
    const root = await tree({
      'good/SKILL.md': skillText('good'),
      'bad/SKILL.md': '---\nname: bad\ndescription: [unclosed\n---\n',
      'worse/SKILL.md': 'no frontmatter at all',
    });
    const { skills, messages } = await discoverSkills(root);
    expect(skills.map((s) => s.name)).toEqual(['good']);
    expect(messages.map((m) => [m.file, m.ruleId, m.fatal])).toEqual([
      [join(root, 'bad', 'SKILL.md'), 'yaml-syntax', true],
      [join(root, 'worse', 'SKILL.md'), 'missing-frontmatter', true],
    ]);
  });

  it('refuses a SKILL.md over 1 MiB before reading it', async () => {
    const root = await tree({
      'huge/SKILL.md': skillText('huge', 'x'.repeat(1024 * 1024)),
      'small/SKILL.md': skillText('small'),
    });
    const { skills, messages } = await discoverSkills(root);
    expect(skills.map((s) => s.name)).toEqual(['small']);
    expect(messages.map(brief)).toEqual(['1:1 file-too-large error']);
    expect(messages[0]!.file).toBe(join(root, 'huge', 'SKILL.md'));
  });

  // Exploratory report (skill author) #6: a Latin-1 SKILL.md loaded without a word, and its \xe9 ran as U+FFFD in
  // the tool's command (and reached the model so): what runs must be what the author wrote.
  it('refuses a SKILL.md that is not UTF-8, naming the line and column of its first bad byte', async () => {
    const latin1 = Buffer.concat([
      Buffer.from(
        '---\nname: latin1\ndescription: Latin-1 file\n---\n\n## Tools\n\n### grep\ndescription: caf',
      ),
      Buffer.from([0xe9]),
      Buffer.from(' lines\nentrypoint: bash:printf %s caf\n'),
    ]);
    const root = await tree({
      'latin1/SKILL.md': latin1,
      'fine/SKILL.md': skillText('fine', 'café ✓ \u{fffd}'),
    });
    const { skills, messages } = await discoverSkills(root);
    expect(skills.map((s) => s.name)).toEqual(['fine']);
    expect(messages.map(brief)).toEqual(['9:17 text-encoding error']);
    expect(messages[0]!.reason).toBe(
      'SKILL.md is not UTF-8 text (byte 0xe9 at line 9, column 17): birdie would show and run other characters than the file holds (not parsed)',
    );
    // An overlong form (C0 AF for "/") is the first fault when it comes first, not a later Latin-1 byte.
    const overlong = Buffer.concat([
      Buffer.from('---\nname: over\ndescription: a'),
      Buffer.from([0xc0, 0xaf]),
      Buffer.from(' b\xe9\n---\n', 'latin1'),
    ]);
    const again = await tree({ 'over/SKILL.md': overlong });
    const found = await discoverSkills(again);
    expect(found.messages.map(brief)).toEqual(['3:15 text-encoding error']);
  });

  it('resolves stdio MCP args against the folder when they name one of its files', async () => {
    const root = await tree({
      'srv/SKILL.md': skillText(
        'srv',
        '',
        'mcp_server:\n  command: python\n  args: [server.py, other.py, -m, pkg]\n',
      ),
      'srv/server.py': 'print(1)',
    });
    const { skills } = await discoverSkills(root);
    expect(skills[0]!.mcpServer).toEqual({
      transport: 'stdio',
      command: 'python',
      args: [join(root, 'srv', 'server.py'), 'other.py', '-m', 'pkg'],
    });
    expect(skills[0]!.kind).toBe('mcp');
  });

  it('resolves a relative stdio MCP command against the skill folder, not the working directory', async () => {
    const root = await tree({
      'a/SKILL.md': skillText('a', '', 'mcp_server:\n  command: ./bin/server.sh\n'),
      'b/SKILL.md': skillText('b', '', 'mcp_server:\n  command: lib/server\n  args: [x]\n'),
      'c/SKILL.md': skillText('c', '', 'mcp_server:\n  command: npx\n  args: [-y, pkg]\n'),
    });
    const { skills } = await discoverSkills(root);
    const commands = Object.fromEntries(
      skills.map((s) => [s.name, s.mcpServer?.transport === 'stdio' ? s.mcpServer.command : undefined]),
    );
    expect(commands).toEqual({
      a: join(root, 'a', 'bin', 'server.sh'),
      b: join(root, 'b', 'lib', 'server'),
      c: 'npx',
    });
  });

  it('reports a missing or unreadable skills folder as a message, not an exception', async () => {
    const root = await tree({ 'locked/SKILL.md': skillText('locked') });
    const missing = await discoverSkills(join(root, 'nope'));
    expect(missing.skills).toEqual([]);
    expect(missing.messages.map((m) => [m.file, brief(m)])).toEqual([
      [join(root, 'nope'), '1:1 unreadable-file error'],
    ]);
    if (process.getuid?.() !== 0) {
      await chmod(join(root, 'locked', 'SKILL.md'), 0o000);
      const locked = await discoverSkills(root);
      expect(locked.messages.map((m) => m.ruleId)).toEqual(['unreadable-file']);
    }
  });

  it('reads many skills with bounded concurrency and returns them all', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      files[`s${String(i).padStart(2, '0')}/SKILL.md`] = skillText(`s${String(i).padStart(2, '0')}`);
    const root = await tree(files);
    const { skills, messages } = await discoverSkills(root);
    expect(messages).toEqual([]);
    expect(skills.map((s) => s.name)).toEqual(
      Object.keys(files)
        .map((f) => f.split('/')[0])
        .sort(),
    );
  });
});

describe('loadSkillFile', () => {
  it('parses one file and lists its folder', async () => {
    const root = await tree({ 'one/SKILL.md': skillText('one'), 'one/notes.md': 'n' });
    const { skill, messages } = await loadSkillFile(join(root, 'one', 'SKILL.md'));
    expect(messages).toEqual([]);
    expect(skill).toMatchObject({ name: 'one', resources: ['notes.md'], kind: 'knowledge', body: 'Body.' });
  });

  it('reports a missing file', async () => {
    const root = await tree({});
    await mkdir(join(root, 'empty'));
    const { skill, messages } = await loadSkillFile(join(root, 'empty', 'SKILL.md'));
    expect(skill).toBeUndefined();
    expect(messages.map(brief)).toEqual(['1:1 unreadable-file error']);
    await writeFile(join(root, 'empty', 'SKILL.md'), skillText('empty'));
    expect((await loadSkillFile(join(root, 'empty', 'SKILL.md'))).skill?.name).toBe('empty');
  });
});
