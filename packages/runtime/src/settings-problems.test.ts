import { describe, expect, it } from 'vitest';
import { settingsProblems } from './settings-schema.js';

describe('settingsProblems', () => {
  it('finds every problem, leaving out the whole setting each is in (an unknown key alone); the rest is kept', () => {
    const section = {
      approval: 'nevr',
      titles: 'model',
      aproval: 'never',
      skills: { enable: ['shell', 7], disable: ['web'] },
      serve: { limits: { concurrent_turns: 0, turns_per_minute: 5 } },
    };
    const { layer, problems } = settingsProblems(section);
    expect(layer).toEqual({
      titles: 'model',
      skills: { disable: ['web'] },
      serve: { limits: { turns_per_minute: 5 } },
    });
    expect(
      problems.map((p) => [p.key, p.dropped.join('.')]).sort((a, b) => a[1]!.localeCompare(b[1]!)),
    ).toEqual([
      ['approval', 'approval'],
      [undefined, 'aproval'],
      ['serve.limits.concurrent_turns', 'serve.limits.concurrent_turns'],
      ['skills.enable', 'skills.enable'],
    ]);
    expect(problems.find((p) => p.key === 'skills.enable')).toMatchObject({
      path: ['skills', 'enable', 1],
      reason: 'settings.skills.enable.1 must be a skill name (a string)',
    });
    // the section given is not changed
    expect(section.approval).toBe('nevr');
  });

  it('a skill both enabled and disabled leaves out the disable list; nothing wrong, nothing left out', () => {
    expect(settingsProblems({ skills: { enable: ['a'], disable: ['A'] } })).toMatchObject({
      layer: { skills: { enable: ['a'] } },
      problems: [{ key: 'skills.disable', reason: 'skill "a" is in both skills.enable and skills.disable' }],
    });
    expect(settingsProblems({ approval: 'ask' })).toEqual({ layer: { approval: 'ask' }, problems: [] });
    expect(settingsProblems(undefined)).toEqual({ layer: {}, problems: [] });
  });
});
