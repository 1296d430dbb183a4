import { describe, expect, it } from 'vitest';
import { makeSkill } from '../test/helpers.js';
import { buildSnapshot, snapshotFromSkills } from './snapshot.js';
import type { SkillDirectory } from './types.js';

const bundled: SkillDirectory = { path: '/b', layer: 'bundled' };
const user: SkillDirectory = { path: '/u', layer: 'user' };
const explicit: SkillDirectory = { path: '/x', layer: 'explicit' };
const project: SkillDirectory = { path: '/p', layer: 'project' };

const summary = (
  messages: readonly {
    ruleId?: string | undefined;
    fatal?: boolean | null | undefined;
    file?: string | undefined;
    line?: number | undefined;
    reason: string;
  }[],
) =>
  messages.map((m) => ({ ruleId: m.ruleId, fatal: m.fatal, file: m.file, line: m.line, reason: m.reason }));

describe('layering', () => {
  it('lets a later layer replace a same-name skill, with a warning naming both files', () => {
    const snapshot = buildSnapshot({
      version: 1,
      scanned: [
        { directory: bundled, skills: [makeSkill('git', { dir: '/b/git', description: 'bundled' })] },
        { directory: user, skills: [makeSkill('git', { dir: '/u/git', description: 'user' })] },
        { directory: project, skills: [makeSkill('git', { dir: '/p/git', description: 'project' })] },
      ],
    });
    expect(snapshot.skills.map((s) => s.description)).toEqual(['project']);
    expect(snapshot.layerOf('git')).toEqual(project);
    expect(summary(snapshot.messages)).toEqual([
      {
        ruleId: 'skill-overridden',
        fatal: false,
        file: '/u/git/SKILL.md',
        line: 1,
        reason:
          'Skill `git` (user, /u/git/SKILL.md) replaces the one from /b/git/SKILL.md (bundled); grants given to that one do not carry over',
      },
      {
        ruleId: 'skill-overridden',
        fatal: false,
        file: '/p/git/SKILL.md',
        line: 1,
        reason:
          'Skill `git` (project, /p/git/SKILL.md) replaces the one from /u/git/SKILL.md (user); grants given to that one do not carry over',
      },
    ]);
    expect(snapshot.messages.every((m) => m.source === 'registry')).toBe(true);
    expect(String(snapshot.messages[0])).toBe(
      '/u/git/SKILL.md:1:1: Skill `git` (user, /u/git/SKILL.md) replaces the one from /b/git/SKILL.md (bundled); grants given to that one do not carry over',
    );
  });

  it('refuses a second skill of the same name inside one folder, keeping the first by path', () => {
    const snapshot = buildSnapshot({
      version: 1,
      scanned: [
        { directory: user, skills: [makeSkill('x', { dir: '/u/zz' }), makeSkill('x', { dir: '/u/aa' })] },
      ],
    });
    expect(snapshot.skills.map((s) => s.file)).toEqual(['/u/aa/SKILL.md']);
    expect(summary(snapshot.messages)).toEqual([
      {
        ruleId: 'duplicate-skill-name',
        fatal: false,
        file: '/u/zz/SKILL.md',
        line: 1,
        reason: 'Skill `x` is ignored: /u/aa/SKILL.md in the same folder already defines it',
      },
    ]);
  });

  it('inside one folder, keeps the skill whose folder is named after it, wherever the other copy sorts', () => {
    const snapshot = buildSnapshot({
      version: 1,
      scanned: [
        {
          directory: user,
          skills: [makeSkill('notes', { dir: '/u/notes' }), makeSkill('notes', { dir: '/u/notes-old' })],
        },
      ],
    });
    expect(snapshot.skills.map((s) => s.file)).toEqual(['/u/notes/SKILL.md']);
    expect(summary(snapshot.messages)).toEqual([
      {
        ruleId: 'duplicate-skill-name',
        fatal: false,
        file: '/u/notes-old/SKILL.md',
        line: 1,
        reason:
          'Skill `notes` is ignored: /u/notes/SKILL.md in the same folder defines it too, and its folder is named after it',
      },
    ]);
    // Neither folder named after it: the first by path, as before.
    const neither = buildSnapshot({
      version: 1,
      scanned: [
        {
          directory: user,
          skills: [makeSkill('notes', { dir: '/u/b' }), makeSkill('notes', { dir: '/u/a' })],
        },
      ],
    });
    expect(neither.skills.map((s) => s.file)).toEqual(['/u/a/SKILL.md']);
  });

  it('treats names that differ only by case as one skill, with a warning', () => {
    const same = buildSnapshot({
      version: 1,
      scanned: [
        {
          directory: user,
          skills: [makeSkill('Deploy', { dir: '/u/a' }), makeSkill('deploy', { dir: '/u/b' })],
        },
      ],
    });
    expect(same.skills.map((s) => s.name)).toEqual(['Deploy']);
    expect(summary(same.messages)).toEqual([
      {
        ruleId: 'skill-name-case-collision',
        fatal: false,
        file: '/u/b/SKILL.md',
        line: 1,
        reason: 'Skill `deploy` is ignored: its name differs only by case from `Deploy` in /u/a/SKILL.md',
      },
    ]);
    const across = buildSnapshot({
      version: 1,
      scanned: [
        { directory: bundled, skills: [makeSkill('deploy', { dir: '/b/deploy' })] },
        { directory: project, skills: [makeSkill('DEPLOY', { dir: '/p/deploy' })] },
      ],
    });
    expect(across.skills.map((s) => s.name)).toEqual(['DEPLOY']);
    expect(across.getSkill('deploy')?.name).toBe('DEPLOY');
    expect(summary(across.messages)).toEqual([
      {
        ruleId: 'skill-name-case-collision',
        fatal: false,
        file: '/p/deploy/SKILL.md',
        line: 1,
        reason:
          'Skill `DEPLOY` (project) replaces `deploy` from /b/deploy/SKILL.md (bundled): the names differ only by case',
      },
    ]);
  });
});

describe('tool ownership', () => {
  it("refuses a tool with a builtin's name, however late its layer, but not a `builtin:` declaration of it", () => {
    // Was: the skill's `load_skill` replaced birdie's in the agent (exploratory report, scale #4).
    const snapshot = buildSnapshot({
      version: 1,
      builtinTools: ['load_skill', 'find_tools', 'remember'],
      scanned: [
        {
          directory: bundled,
          skills: [
            makeSkill('memory', {
              dir: '/b/memory',
              tools: [{ name: 'remember', entrypoint: 'builtin:remember' }],
            }),
          ],
        },
        {
          directory: explicit,
          skills: [
            makeSkill('notes', { dir: '/x/notes', tools: [{ name: 'load_skill', line: 8 }, 'add_note'] }),
          ],
        },
      ],
    });
    expect(snapshot.getTool('load_skill')).toBeUndefined();
    expect(snapshot.getSkill('notes')?.tools.map((t) => t.name)).toEqual(['add_note']);
    expect(snapshot.getTool('remember')?.skill.name).toBe('memory');
    expect(summary(snapshot.messages)).toEqual([
      {
        ruleId: 'tool-name-clash',
        fatal: false,
        file: '/x/notes/SKILL.md',
        line: 8,
        reason:
          'Tool `load_skill` of skill `notes` is refused: `load_skill` is a builtin tool, which keeps its name; rename this one',
      },
    ]);
  });

  it('gives the tool to the later layer, refuses the earlier skill’s, naming both files, and keeps everything else', () => {
    // Was: the bundled skill kept it and the user's was refused, against the layers' documented precedence
    // (exploratory report #5).
    const snapshot = buildSnapshot({
      version: 1,
      scanned: [
        {
          directory: bundled,
          skills: [makeSkill('fs', { dir: '/b/fs', tools: ['read_file', { name: 'write_file', line: 9 }] })],
        },
        {
          directory: user,
          skills: [
            makeSkill('notes', {
              dir: '/u/notes',
              tools: ['add_note', { name: 'write_file', line: 42 }],
              tags: ['t'],
            }),
            makeSkill('other', { dir: '/u/other', tools: ['other_tool'] }),
          ],
        },
      ],
    });
    expect(snapshot.getTool('write_file')?.skill.name).toBe('notes');
    expect(snapshot.getSkill('fs')?.tools.map((t) => t.name)).toEqual(['read_file']);
    expect(snapshot.getSkill('notes')?.tools.map((t) => t.name)).toEqual(['add_note', 'write_file']);
    expect(snapshot.toolsByTag('t').map((e) => e.tool.name)).toEqual(['add_note', 'write_file']);
    expect(snapshot.getTool('other_tool')?.skill.name).toBe('other');
    expect(summary(snapshot.messages)).toEqual([
      {
        ruleId: 'tool-name-clash',
        fatal: false,
        file: '/b/fs/SKILL.md',
        line: 9,
        reason:
          'Tool `write_file` of skill `fs` is refused: skill `notes` (/u/notes/SKILL.md) declares it too and takes precedence',
      },
    ]);
  });

  it('inside one folder, the first file by path keeps the tool', () => {
    const snapshot = snapshotFromSkills([
      makeSkill('beta', { dir: '/d/beta', tools: [{ name: 'lookup', line: 7 }] }),
      makeSkill('alpha', { dir: '/d/alpha', tools: ['lookup'] }),
    ]);
    expect(snapshot.getTool('lookup')?.skill.name).toBe('alpha');
    expect(summary(snapshot.messages).map((m) => [m.file, m.line, m.reason])).toEqual([
      [
        '/d/beta/SKILL.md',
        7,
        'Tool `lookup` of skill `beta` is refused: skill `alpha` (/d/alpha/SKILL.md) declares it too and takes precedence',
      ],
    ]);
  });

  it('a skill off by default never takes a tool from one that is on, whatever the layers', () => {
    const on = buildSnapshot({
      version: 1,
      scanned: [
        { directory: user, skills: [makeSkill('mine', { dir: '/u/mine', tools: ['lookup'] })] },
        {
          directory: explicit,
          skills: [makeSkill('spare', { dir: '/x/spare', tools: ['lookup'], enabledByDefault: false })],
        },
      ],
    });
    expect(on.getTool('lookup')?.skill.name).toBe('mine');
    // An application default counts as on.
    const byDefaults = buildSnapshot({
      version: 1,
      defaults: ['FS'],
      scanned: [
        {
          directory: bundled,
          skills: [makeSkill('fs', { dir: '/b/fs', tools: ['lookup'], enabledByDefault: false })],
        },
        {
          directory: explicit,
          skills: [makeSkill('spare', { dir: '/x/spare', tools: ['lookup'], enabledByDefault: false })],
        },
      ],
    });
    expect(byDefaults.getTool('lookup')?.skill.name).toBe('fs');
  });

  it('gives no clash when the overriding skill redeclares the tools of the skill it replaces', () => {
    const snapshot = buildSnapshot({
      version: 1,
      scanned: [
        { directory: bundled, skills: [makeSkill('fs', { dir: '/b/fs', tools: ['read_file'] })] },
        { directory: user, skills: [makeSkill('fs', { dir: '/u/fs', tools: ['read_file'] })] },
      ],
    });
    expect(snapshot.getTool('read_file')?.skill.file).toBe('/u/fs/SKILL.md');
    expect(snapshot.messages.map((m) => m.ruleId)).toEqual(['skill-overridden']);
  });
});

describe('indexes', () => {
  const snapshot = snapshotFromSkills([
    makeSkill('zeta', { tools: ['z1'], tags: ['Files'], toolTags: ['io'] }),
    makeSkill('Alpha', { tools: ['a1', 'a2'], tags: ['files'] }),
    makeSkill('beta', { body: 'b' }),
    makeSkill('mcp-one', { mcpServer: { transport: 'stdio', command: 'node', args: ['x.js'] } }),
  ]);

  it('orders skills by name, case-insensitively', () => {
    expect(snapshot.skills.map((s) => s.name)).toEqual(['Alpha', 'beta', 'mcp-one', 'zeta']);
  });

  it('looks names up exactly, then case-insensitively', () => {
    expect(snapshot.getSkill('Alpha')?.name).toBe('Alpha');
    expect(snapshot.getSkill('ALPHA')?.name).toBe('Alpha');
    expect(snapshot.getSkill('gamma')).toBeUndefined();
  });

  it('suggests close names for a miss', () => {
    const many = snapshotFromSkills(
      ['deploy', 'deploy-k8s', 'docker', 'git', 'github', 'shell', 'web-search'].map((n) => makeSkill(n)),
    );
    expect(many.suggest('delpoy')).toEqual(['deploy']);
    expect(many.suggest('gti')).toEqual(['git']);
    expect(many.suggest('GITHUB')).toEqual(['github', 'git']);
    expect(many.suggest('deploy', 5)).toEqual(['deploy', 'deploy-k8s']);
    expect(many.suggest('websearch')).toEqual(['web-search']);
    expect(many.suggest('zzzzzz')).toEqual([]);
    expect(many.suggest('docker', 0)).toEqual([]);
  });

  it('maps tools to their skill with tags = tags ∪ toolTags', () => {
    const entry = snapshot.getTool('z1');
    expect(entry?.skill.name).toBe('zeta');
    expect(entry?.tool.name).toBe('z1');
    expect(entry?.tags).toEqual(['Files', 'io']);
    expect(snapshot.getTool('nope')).toBeUndefined();
  });

  it('indexes tools by tag, case-insensitively, in skill order', () => {
    expect(snapshot.toolsByTag('files').map((e) => `${e.skill.name}/${e.tool.name}`)).toEqual([
      'Alpha/a1',
      'Alpha/a2',
      'zeta/z1',
    ]);
    expect(snapshot.toolsByTag('IO').map((e) => e.tool.name)).toEqual(['z1']);
    expect(snapshot.toolsByTag('none')).toEqual([]);
  });

  it('collects MCP server declarations', () => {
    expect(snapshot.mcpServers().map((e) => [e.skill.name, e.server.transport])).toEqual([
      ['mcp-one', 'stdio'],
    ]);
  });

  it('is immutable all the way down', () => {
    const skill = snapshot.getSkill('zeta')!;
    expect(Object.isFrozen(snapshot)).toBe(true);
    expect(Object.isFrozen(snapshot.skills)).toBe(true);
    expect(Object.isFrozen(skill.tools[0]!.schema)).toBe(true);
    expect(() => (snapshot.skills as unknown[]).push(1)).toThrow(TypeError);
    snapshot.toolsByTag('files').pop();
    expect(snapshot.toolsByTag('files')).toHaveLength(3);
  });
});

describe('snapshotFromSkills', () => {
  it('leaves the caller’s skill objects unfrozen', () => {
    const skill = makeSkill('mine', { tags: ['a'] });
    const snapshot = snapshotFromSkills([skill]);
    expect(Object.isFrozen(skill)).toBe(false);
    skill.tags.push('b');
    expect(snapshot.getSkill('mine')?.tags).toEqual(['a']);
  });
});
