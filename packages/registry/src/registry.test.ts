import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { skillText, writeSkill } from '../test/skill-files.js';
import { SkillPolicy } from './policy.js';
import { loadRegistry } from './registry.js';

const rules = (messages: readonly { ruleId?: string | undefined; source?: string | undefined }[]) =>
  messages.filter((m) => m.source === 'registry').map((m) => m.ruleId);

describe('loadRegistry: layers', () => {
  it('loads bundled < user < project < explicit (a trusted project), later replacing earlier with a warning naming both files', async (t) => {
    const root = await tempDir(t);
    const dirs = {
      bundled: join(root, 'bundled'),
      user: join(root, 'home/.birdie/skills'),
      project: join(root, 'proj/.agents/skills'),
      explicit: join(root, 'extra'),
    };
    const bundledFile = await writeSkill(dirs.bundled, { name: 'notes', description: 'bundled notes' });
    await writeSkill(dirs.bundled, { name: 'only-bundled' });
    const userFile = await writeSkill(dirs.user, { name: 'notes', description: 'user notes' });
    await writeSkill(dirs.project, { name: 'proj', description: 'project skill' });
    const explicitFile = await writeSkill(dirs.explicit, { name: 'proj', description: 'explicit skill' });
    const registry = await loadRegistry({
      dirs: [
        { path: dirs.bundled, layer: 'bundled' },
        { path: dirs.user, layer: 'user' },
        { path: join(root, 'missing'), layer: 'user' },
        { path: dirs.project, layer: 'project' },
        dirs.explicit,
      ],
      trust: () => true,
    });
    const snapshot = registry.current();
    expect(snapshot.skills.map((s) => [s.name, s.description])).toEqual([
      ['notes', 'user notes'],
      ['only-bundled', 'The only-bundled skill'],
      ['proj', 'explicit skill'],
    ]);
    expect(snapshot.layerOf('notes')).toEqual({ path: dirs.user, layer: 'user' });
    expect(snapshot.layerOf('only-bundled')?.layer).toBe('bundled');
    expect(snapshot.layerOf('PROJ')).toEqual({ path: dirs.explicit, layer: 'explicit' });
    expect(snapshot.layerOf('nope')).toBeUndefined();
    const infos = snapshot.messages.filter((m) => m.ruleId === 'skill-overridden');
    expect(infos.map((m) => [m.file, m.fatal, m.reason])).toEqual([
      [
        userFile,
        false,
        `Skill \`notes\` (user, ${userFile}) replaces the one from ${bundledFile} (bundled); grants given to that one do not carry over`,
      ],
      [explicitFile, false, expect.stringContaining('(explicit, ')],
    ]);
    expect(registry.messages).toBe(snapshot.messages);
    expect(snapshot.version).toBe(1);
    expect(registry.directories.map((d) => d.layer)).toEqual([
      'bundled',
      'user',
      'user',
      'project',
      'explicit',
    ]);
  });

  it('finds nothing and says nothing for missing folders', async (t) => {
    const root = await tempDir(t);
    const registry = await loadRegistry({ dirs: [join(root, 'a'), join(root, 'b/c/d')] });
    expect(registry.current().skills).toEqual([]);
    expect(registry.messages).toEqual([]);
  });

  it('gives a clashing tool to the later folder, refuses the earlier one’s, and does so again on reload', async (t) => {
    const root = await tempDir(t);
    const first = await writeSkill(join(root, 'a'), { name: 'files', tools: ['read_file', 'write_file'] });
    const second = await writeSkill(join(root, 'b'), { name: 'notes', tools: ['add_note', 'read_file'] });
    await writeSkill(join(root, 'b'), { name: 'zzz', tools: ['zzz_tool'] });
    const registry = await loadRegistry({ dirs: [join(root, 'a'), join(root, 'b')] });
    for (let round = 0; round < 2; round++) {
      const snapshot = registry.current();
      expect(snapshot.skills.map((s) => [s.name, s.tools.map((tool) => tool.name)])).toEqual([
        ['files', ['write_file']],
        ['notes', ['add_note', 'read_file']],
        ['zzz', ['zzz_tool']],
      ]);
      // Was: the first folder's skill kept it, against the folders' precedence (exploratory report #5).
      expect(snapshot.getTool('read_file')?.skill.file).toBe(second);
      const clash = snapshot.messages.find((m) => m.ruleId === 'tool-name-clash');
      expect(clash?.file).toBe(first);
      expect(clash?.line).toBe((await readFile(first, 'utf8')).split('\n').indexOf('### read_file') + 1);
      expect(clash?.reason).toBe(
        `Tool \`read_file\` of skill \`files\` is refused: skill \`notes\` (${second}) declares it too and takes precedence`,
      );
      const policy = new SkillPolicy(registry);
      expect(policy.allowedTools('s').map((e) => `${e.skill.name}/${e.tool.name}`)).toEqual([
        'files/write_file',
        'notes/add_note',
        'notes/read_file',
        'zzz/zzz_tool',
      ]);
      await registry.reload();
    }
  });
});

describe('loadRegistry: bad input', () => {
  it('warns about a skills folder that is a file, or sits under one', async (t) => {
    const root = await tempDir(t);
    await writeFile(join(root, 'file'), 'not a folder');
    const registry = await loadRegistry({ dirs: [join(root, 'file'), join(root, 'file/skills')] });
    expect(registry.messages.map((m) => [m.ruleId, m.source, m.fatal, m.file])).toEqual([
      ['dir-not-directory', 'registry', false, join(root, 'file')],
      ['dir-not-directory', 'registry', false, join(root, 'file/skills')],
    ]);
    expect(String(registry.messages[0])).toBe(
      `${join(root, 'file')}:1:1: ${join(root, 'file')} is not a folder; it is skipped`,
    );
  });

  it('survives symbolic link loops, as the folder itself and inside it', async (t) => {
    const root = await tempDir(t);
    await symlink(join(root, 'loop-b'), join(root, 'loop-a'));
    await symlink(join(root, 'loop-a'), join(root, 'loop-b'));
    const skills = join(root, 'skills');
    await writeSkill(skills, { name: 'good' });
    await symlink(join(skills, 'x'), join(skills, 'y'));
    await symlink(join(skills, 'y'), join(skills, 'x'));
    await symlink(skills, join(skills, 'self'));
    await symlink(join(skills, 'good'), join(skills, 'good', 'inner-loop'));
    const registry = await loadRegistry({ dirs: [join(root, 'loop-a'), skills] });
    expect(registry.current().skills.map((s) => s.name)).toEqual(['good']);
    const loop = registry.messages.find((m) => m.file === join(root, 'loop-a'));
    expect(loop?.ruleId).toBe('dir-unreadable');
    expect(loop?.reason).toContain('symbolic link loop');
    expect(registry.messages.filter((m) => m.fatal === true)).toEqual([]);
    expect(
      registry.messages.filter((m) => m.file?.startsWith(skills)).map((m) => [m.ruleId, m.file, m.fatal]),
    ).toEqual([
      ['dir-unreadable', join(skills, 'x'), false],
      ['dir-unreadable', join(skills, 'y'), false],
    ]);
  });

  it('skips 10,000 sub-folders without SKILL.md and loads the one that has it', async (t) => {
    const root = await tempDir(t);
    const skills = join(root, 'skills');
    await mkdir(skills);
    for (let i = 0; i < 10_000; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, k) => mkdir(join(skills, `empty-${String(i + k).padStart(5, '0')}`))),
      );
    }
    await writeSkill(skills, { name: 'real' });
    const registry = await loadRegistry({ dirs: [skills] });
    expect(registry.current().skills.map((s) => s.name)).toEqual(['real']);
    expect(registry.messages).toEqual([]);
  }, 60_000);

  it('keeps one skill of names that differ only by case, and warns', async (t) => {
    const root = await tempDir(t);
    const upper = await writeSkill(root, { name: 'Deploy' }, 'Deploy');
    const lower = await writeSkill(root, { name: 'deploy' }, 'deploy');
    const registry = await loadRegistry({ dirs: [root] });
    expect(registry.current().skills.map((s) => s.file)).toEqual([upper]);
    const warning = registry.messages.find((m) => m.ruleId === 'skill-name-case-collision');
    expect(warning?.file).toBe(lower);
    expect(warning?.fatal).toBe(false);
    expect(warning?.reason).toContain(upper);
    expect(registry.current().getSkill('DEPLOY')?.file).toBe(upper);
  });

  it('reports a broken or unreadable SKILL.md and still loads the others', async (t) => {
    const root = await tempDir(t);
    await writeSkill(root, { name: 'fine' });
    await mkdir(join(root, 'broken'));
    await writeFile(join(root, 'broken', 'SKILL.md'), '---\nname: [unclosed\n');
    await mkdir(join(root, 'dir-as-file', 'SKILL.md'), { recursive: true });
    const registry = await loadRegistry({ dirs: [root] });
    expect(registry.current().skills.map((s) => s.name)).toEqual(['fine']);
    const broken = registry.messages.filter((m) => m.file === join(root, 'broken', 'SKILL.md'));
    expect(broken.some((m) => m.fatal === true)).toBe(true);
  });
});

describe('reload', () => {
  it('swaps in a new snapshot while the one a turn holds stays as it was', async (t) => {
    const root = await tempDir(t);
    await writeSkill(root, { name: 'alpha', description: 'first', triggers: ['kettle'] });
    await writeSkill(root, { name: 'beta', tools: ['beta_tool'] });
    const registry = await loadRegistry({ dirs: [root] });
    const policy = new SkillPolicy(registry);
    const held = registry.current();
    expect(policy.isToolAllowed('s', 'beta_tool', held)).toBe(true);

    await writeSkill(root, { name: 'alpha', description: 'second', triggers: ['teapot'] });
    await rm(join(root, 'beta'), { recursive: true });
    await writeSkill(root, { name: 'gamma', tools: ['gamma_tool'] });
    const messages = await registry.reload();
    expect(messages).toEqual([]);

    const next = registry.current();
    expect(next).not.toBe(held);
    expect(next.version).toBe(2);
    expect(next.skills.map((s) => `${s.name}:${s.description}`)).toEqual([
      'alpha:second',
      'gamma:The gamma skill',
    ]);
    expect(next.matchTriggers('a teapot', ['alpha']).map((s) => s.name)).toEqual(['alpha']);
    expect(policy.isToolAllowed('s', 'beta_tool')).toBe(false);
    expect(policy.isToolAllowed('s', 'gamma_tool')).toBe(true);

    expect(held.version).toBe(1);
    expect(held.skills.map((s) => `${s.name}:${s.description}`)).toEqual([
      'alpha:first',
      'beta:The beta skill',
    ]);
    expect(held.matchTriggers('a kettle', ['alpha']).map((s) => s.name)).toEqual(['alpha']);
    expect(held.getTool('beta_tool')?.skill.name).toBe('beta');
    expect(policy.isToolAllowed('s', 'beta_tool', held)).toBe(true);
  });

  it('runs one scan at a time and gives every caller a result at least as new as its call', async (t) => {
    const root = await tempDir(t);
    await writeSkill(root, { name: 'one' });
    const registry = await loadRegistry({ dirs: [root] });
    const first = registry.reload();
    // Written synchronously, so `first` is certainly still scanning when the next three calls come.
    mkdirSync(join(root, 'two'), { recursive: true });
    writeFileSync(join(root, 'two', 'SKILL.md'), skillText({ name: 'two' }));
    const [a, b, c] = [registry.reload(), registry.reload(), registry.reload()];
    await Promise.all([first, a, b, c]);
    expect(registry.current().skills.map((s) => s.name)).toEqual(['one', 'two']);
    expect(registry.current().version).toBe(3);
  });

  it('keeps the last good snapshot when a folder turns bad, and recovers', async (t) => {
    const root = await tempDir(t);
    const skills = join(root, 'skills');
    await writeSkill(skills, { name: 'one' });
    const registry = await loadRegistry({ dirs: [skills] });
    await rename(skills, join(root, 'moved'));
    await writeFile(skills, 'now a file');
    expect(rules(await registry.reload())).toEqual(['dir-not-directory']);
    expect(registry.current().skills).toEqual([]);
    await rm(skills);
    await rename(join(root, 'moved'), skills);
    expect(await registry.reload()).toEqual([]);
    expect(registry.current().skills.map((s) => s.name)).toEqual(['one']);
  });
});

describe('loadRegistry: folders the user named', () => {
  it('warns (dir-not-found) for a named folder that does not exist, and stays silent for a default one', async (t) => {
    const root = await tempDir(t);
    const named = join(root, 'skils');
    const registry = await loadRegistry({
      dirs: [
        { path: join(root, 'home/.birdie/skills'), layer: 'user' },
        { path: named, layer: 'explicit', named: true },
      ],
      agentDirs: [{ path: join(root, 'agentz'), layer: 'explicit', named: true }],
    });
    expect(registry.messages.map((m) => [m.ruleId, m.file, m.fatal, m.reason])).toEqual([
      ['dir-not-found', named, false, `${named} does not exist; no skills are loaded from it`],
      [
        'dir-not-found',
        join(root, 'agentz'),
        false,
        `${join(root, 'agentz')} does not exist; no agents are loaded from it`,
      ],
    ]);
    await writeSkill(named, { name: 'later' });
    await registry.reload();
    expect(registry.messages.map((m) => m.file)).toEqual([join(root, 'agentz')]);
    expect(registry.current().skills.map((s) => s.name)).toEqual(['later']);
  });

  it('warns (dir-holds-skill) for a skills folder that is one skill’s folder, naming its parent', async (t) => {
    const root = await tempDir(t);
    const file = await writeSkill(root, { name: 'echo-tool' });
    const one = join(root, 'echo-tool');
    const registry = await loadRegistry({ dirs: [{ path: one, layer: 'explicit', named: true }] });
    expect(registry.current().skills).toEqual([]);
    expect(registry.messages.map((m) => [m.ruleId, m.file, m.fatal, m.reason])).toEqual([
      [
        'dir-holds-skill',
        file,
        false,
        `${one} is one skill's folder (it holds SKILL.md), not a folder of skills: its skill is not loaded; name its parent folder ${root} instead`,
      ],
    ]);
  });
});
