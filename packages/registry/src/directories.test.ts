import { describe, expect, it } from 'vitest';
import { defaultAgentDirectories, defaultSkillDirectories, normalizeDirectories } from './directories.js';

describe('defaultSkillDirectories', () => {
  it('lists bundled, user, project, then explicit folders in increasing precedence', () => {
    expect(
      defaultSkillDirectories({
        bundledDir: '/app/skills',
        home: '/home/u',
        cwd: '/work/p',
        extra: ['more', '/abs'],
      }),
    ).toEqual([
      { path: '/app/skills', layer: 'bundled' },
      { path: '/home/u/.birdie/skills', layer: 'user' },
      { path: '/home/u/.agents/skills', layer: 'user' },
      { path: '/work/p/.birdie/skills', layer: 'project' },
      { path: '/work/p/.agents/skills', layer: 'project' },
      { path: '/work/p/more', layer: 'explicit' },
      { path: '/abs', layer: 'explicit' },
    ]);
  });

  it('leaves out the bundled folder when there is none', () => {
    expect(defaultSkillDirectories({ home: '/h', cwd: '/c' }).map((d) => d.layer)).toEqual([
      'user',
      'user',
      'project',
      'project',
    ]);
  });
});

describe('defaultAgentDirectories', () => {
  it('lists bundled, user, project, then explicit agents folders in increasing precedence', () => {
    expect(
      defaultAgentDirectories({
        bundledDir: '/app/agents',
        home: '/home/u',
        cwd: '/work/p',
        extra: ['mine'],
      }),
    ).toEqual([
      { path: '/app/agents', layer: 'bundled' },
      { path: '/home/u/.birdie/agents', layer: 'user' },
      { path: '/home/u/.agents/agents', layer: 'user' },
      { path: '/work/p/.birdie/agents', layer: 'project' },
      { path: '/work/p/.agents/agents', layer: 'project' },
      { path: '/work/p/mine', layer: 'explicit' },
    ]);
  });
});

describe('normalizeDirectories', () => {
  it('keeps the workspace a project folder belongs to', () => {
    expect(
      normalizeDirectories([{ path: '/link/.birdie/skills', layer: 'project', workspace: '/real' }]),
    ).toEqual([{ path: '/link/.birdie/skills', layer: 'project', workspace: '/real' }]);
  });

  it('turns strings into explicit folders and keeps only the last occurrence of a path', () => {
    expect(
      normalizeDirectories([{ path: '/h/.birdie/skills', layer: 'user' }, '/x', '/h/.birdie/skills/']),
    ).toEqual([
      { path: '/x', layer: 'explicit' },
      { path: '/h/.birdie/skills', layer: 'explicit' },
    ]);
  });

  it("a project folder that is the user's (run from the home folder) stays the user's, never the untrusted project's", () => {
    expect(
      normalizeDirectories([
        { path: '/h/.birdie/skills', layer: 'user' },
        '/x',
        { path: '/h/.birdie/skills/', layer: 'project' },
        { path: '/h/.agents/skills', layer: 'project' },
      ]),
    ).toEqual([
      { path: '/h/.birdie/skills', layer: 'user' },
      { path: '/x', layer: 'explicit' },
      { path: '/h/.agents/skills', layer: 'project' },
    ]);
  });
});
