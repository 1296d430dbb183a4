import { describe, expect, it } from 'vitest';
import { makeSkill } from '../test/helpers.js';
import { RegistryError } from './errors.js';
import { SkillPolicy } from './policy.js';
import { snapshotFromSkills } from './snapshot.js';
import type { RegistrySnapshot } from './types.js';

const names = (skills: ReadonlyArray<{ name: string }>) => skills.map((skill) => skill.name);

describe('SkillPolicy precedence: disable > enable > default', () => {
  // Every combination of (explicitly disabled, explicitly enabled, on by default).
  const combinations = [false, true].flatMap((disabled) =>
    [false, true].flatMap((enabled) => [false, true].map((byDefault) => ({ disabled, enabled, byDefault }))),
  );

  it.each(combinations)(
    'disabled=$disabled enabled=$enabled default=$byDefault',
    ({ disabled, enabled, byDefault }) => {
      const snapshot = snapshotFromSkills([
        makeSkill('subject', { enabledByDefault: byDefault, tools: ['subject_tool'] }),
        makeSkill('bystander', { tools: ['bystander_tool'] }),
      ]);
      const policy = new SkillPolicy(() => snapshot, {
        state: { s1: { enabled: enabled ? ['subject'] : [], disabled: disabled ? ['subject'] : [] } },
      });
      const expected = !disabled && (enabled || byDefault);
      expect(names(policy.allowedSkills('s1')).includes('subject')).toBe(expected);
      expect(policy.isToolAllowed('s1', 'subject_tool')).toBe(expected);
      expect(policy.allowedTools('s1').some((e) => e.tool.name === 'subject_tool')).toBe(expected);
      expect(policy.isToolAllowed('s1', 'bystander_tool')).toBe(true);
    },
  );

  it.each(combinations)(
    'same rule when the default comes from the application list: disabled=$disabled enabled=$enabled default=$byDefault',
    ({ disabled, enabled, byDefault }) => {
      const snapshot = snapshotFromSkills([makeSkill('subject', { enabledByDefault: false })]);
      const policy = new SkillPolicy(() => snapshot, {
        defaults: byDefault ? ['Subject'] : [],
        state: { k: { enabled: enabled ? ['subject'] : [], disabled: disabled ? ['subject'] : [] } },
      });
      expect(names(policy.allowedSkills('k'))).toEqual(
        !disabled && (enabled || byDefault) ? ['subject'] : [],
      );
    },
  );
});

describe('SkillPolicy ceiling: the most any key may use', () => {
  const snapshot = snapshotFromSkills([
    makeSkill('shell', { tools: ['run_bash'] }),
    makeSkill('always-on', { tools: ['ping'], enabledByDefault: true }),
    makeSkill('notes'),
  ]);
  const policy = new SkillPolicy(() => snapshot, {
    defaults: ['notes'],
    state: { k: { enabled: ['shell', 'always-on'], disabled: [] } },
    ceiling: { skill: (skill) => skill.name === 'notes', agent: (name) => name === 'helper' },
  });

  it('a grant, a default or enabled_by_default never widens it', () => {
    expect(names(policy.allowedSkills('k'))).toEqual(['notes']);
    expect(policy.isToolAllowed('k', 'run_bash')).toBe(false);
    expect(policy.isToolAllowed('k', 'ping')).toBe(false);
    policy.enable('k', 'shell');
    expect(policy.allowedTools('k')).toEqual([]);
    expect(policy.withinCeiling(snapshot.getSkill('shell')!)).toBe(false);
  });

  it('decides agents by name; without a ceiling every agent is allowed', () => {
    expect(policy.isAgentAllowed('helper')).toBe(true);
    expect(policy.isAgentAllowed('other')).toBe(false);
    expect(new SkillPolicy(() => snapshot).isAgentAllowed('other')).toBe(true);
  });
});

describe('SkillPolicy', () => {
  const snapshot = snapshotFromSkills([
    makeSkill('web', { tools: ['fetch_url', 'search'] }),
    makeSkill('shell', { tools: ['run'], enabledByDefault: false }),
    makeSkill('notes'),
  ]);

  it('keeps grants per key and lets enable and disable override each other', () => {
    const policy = new SkillPolicy(() => snapshot);
    policy.disable('a', 'web');
    policy.enable('b', 'shell');
    expect(names(policy.allowedSkills('a'))).toEqual(['notes']);
    expect(names(policy.allowedSkills('b'))).toEqual(['notes', 'shell', 'web']);
    expect(names(policy.allowedSkills('fresh'))).toEqual(['notes', 'web']);
    policy.enable('a', 'WEB');
    expect(policy.grants('a')).toEqual({
      enabled: ['WEB'],
      disabled: [],
      sources: { web: `explicit:${snapshot.getSkill('web')?.file}` },
    });
    expect(names(policy.allowedSkills('a'))).toEqual(['notes', 'web']);
    policy.disable('b', 'shell');
    expect(policy.grants('b')).toEqual({ enabled: [], disabled: ['shell'] });
  });

  it('keys without grants get the defaults, and a later grant stays with its own key', () => {
    const policy = new SkillPolicy(() => snapshot);
    expect(names(policy.allowedSkills('one'))).toEqual(['notes', 'web']);
    expect(names(policy.allowedSkills('two'))).toEqual(['notes', 'web']);
    policy.enable('one', 'shell');
    expect(names(policy.allowedSkills('one'))).toEqual(['notes', 'shell', 'web']);
    expect(names(policy.allowedSkills('two'))).toEqual(['notes', 'web']);
    expect(policy.isToolAllowed('two', 'run')).toBe(false);
    policy.disable('two', 'notes');
    expect(names(policy.allowedSkills('two'))).toEqual(['web']);
    expect(names(policy.allowedSkills('three'))).toEqual(['notes', 'web']);
    expect(names(policy.allowedSkills('one'))).toEqual(['notes', 'shell', 'web']);
  });

  it('resets one skill or a whole key', () => {
    const policy = new SkillPolicy(() => snapshot);
    policy.enable('k', 'shell');
    policy.disable('k', 'web');
    policy.reset('k', 'shell');
    expect(policy.grants('k')).toEqual({ enabled: [], disabled: ['web'] });
    policy.reset('k');
    expect(policy.grants('k')).toEqual({ enabled: [], disabled: [] });
    expect(names(policy.allowedSkills('k'))).toEqual(['notes', 'web']);
    policy.reset('never-seen');
  });

  it('round-trips through JSON and keeps unknown names without ever allowing them', () => {
    const policy = new SkillPolicy(() => snapshot, {
      state: { s: { enabled: ['gone-skill', 'shell'], disabled: ['also-gone'] } },
    });
    expect(names(policy.allowedSkills('s'))).toEqual(['notes', 'shell', 'web']);
    expect(policy.isToolAllowed('s', 'gone_tool')).toBe(false);
    const state = JSON.parse(JSON.stringify(policy));
    expect(state).toEqual({ s: { enabled: ['gone-skill', 'shell'], disabled: ['also-gone'] } });
    const restored = new SkillPolicy(() => snapshot, { state });
    expect(restored.toJSON()).toEqual(state);
  });

  it('allows a returning skill that was enabled while it was gone', () => {
    const later = snapshotFromSkills(
      [...snapshot.skills, makeSkill('gone-skill', { enabledByDefault: false })],
      {
        version: 2,
      },
    );
    const policy = new SkillPolicy(() => snapshot, {
      state: { s: { enabled: ['gone-skill'], disabled: [] } },
    });
    expect(names(policy.allowedSkills('s'))).not.toContain('gone-skill');
    expect(names(policy.allowedSkills('s', later))).toContain('gone-skill');
  });

  it('evaluates against the snapshot it is given, or the current one', () => {
    let current: RegistrySnapshot = snapshot;
    const policy = new SkillPolicy(() => current);
    const next = snapshotFromSkills([makeSkill('only')], { version: 2 });
    expect(names(policy.allowedSkills('k'))).toEqual(['notes', 'web']);
    current = next;
    expect(names(policy.allowedSkills('k'))).toEqual(['only']);
    expect(names(policy.allowedSkills('k', snapshot))).toEqual(['notes', 'web']);
  });

  it('lists allowed tools in skill order and answers isToolAllowed', () => {
    const policy = new SkillPolicy(() => snapshot);
    expect(policy.allowedTools('k').map((e) => `${e.skill.name}/${e.tool.name}`)).toEqual([
      'web/fetch_url',
      'web/search',
    ]);
    expect(policy.isToolAllowed('k', 'run')).toBe(false);
    policy.enable('k', 'shell');
    expect(policy.isToolAllowed('k', 'run')).toBe(true);
    expect(policy.allowedTools('k').map((e) => e.tool.name)).toEqual(['run', 'fetch_url', 'search']);
  });

  it('hands out copies, so a caller cannot corrupt the cache', () => {
    const policy = new SkillPolicy(() => snapshot);
    policy.allowedTools('k').length = 0;
    policy.allowedSkills('k').pop();
    expect(policy.allowedTools('k')).toHaveLength(2);
    expect(policy.allowedSkills('k')).toHaveLength(2);
    const grants = policy.grants('k');
    grants.enabled.push('shell');
    expect(policy.isToolAllowed('k', 'run')).toBe(false);
  });

  it('setGrants replaces a key’s grants and dedupes names case-insensitively', () => {
    const policy = new SkillPolicy(() => snapshot);
    policy.setGrants('k', { enabled: ['shell', 'SHELL'], disabled: ['web'] });
    expect(policy.grants('k')).toEqual({ enabled: ['shell'], disabled: ['web'] });
    expect(names(policy.allowedSkills('k'))).toEqual(['notes', 'shell']);
  });

  it('takes its defaults from a registry', () => {
    const registry = {
      current: () => snapshot,
      defaults: ['shell'],
    } as unknown as ConstructorParameters<typeof SkillPolicy>[0];
    expect(names(new SkillPolicy(registry).allowedSkills('k'))).toEqual(['notes', 'shell', 'web']);
    expect(names(new SkillPolicy(registry, { defaults: [] }).allowedSkills('k'))).toEqual(['notes', 'web']);
  });

  it('refuses keys and names that cannot be stored', () => {
    const policy = new SkillPolicy(() => snapshot);
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error instanceof RegistryError ? error.code : 'other';
      }
      return 'none';
    };
    expect(codeOf(() => policy.enable('', 'web'))).toBe('invalid-policy-key');
    expect(codeOf(() => policy.allowedTools('bad\nkey'))).toBe('invalid-policy-key');
    expect(codeOf(() => policy.disable('k', ' '))).toBe('invalid-skill-name');
    expect(codeOf(() => policy.setGrants('k', { enabled: ['a\u0000b'], disabled: [] }))).toBe(
      'invalid-skill-name',
    );
    expect(policy.toJSON()).toEqual({});
  });
});

describe('SkillPolicy: grants belong to the skill file they were given to', () => {
  const skills = (webDir: string) =>
    snapshotFromSkills([makeSkill('web', { dir: webDir, tools: ['fetch_url'], enabledByDefault: false })]);

  it('a grant does not carry over when another file provides the name, and says which', () => {
    let snapshot = skills('/bundled/web');
    const policy = new SkillPolicy(() => snapshot);
    policy.enable('s', 'web');
    expect(policy.isToolAllowed('s', 'fetch_url')).toBe(true);
    snapshot = skills('/project/web');
    expect(policy.isToolAllowed('s', 'fetch_url')).toBe(false);
    expect(policy.staleGrants('s')).toEqual([
      {
        name: 'web',
        grantedTo: 'explicit:/bundled/web/SKILL.md',
        providedBy: 'explicit:/project/web/SKILL.md',
      },
    ]);
    // Granting again binds the grant to the new file.
    policy.enable('s', 'web');
    expect(policy.isToolAllowed('s', 'fetch_url')).toBe(true);
    expect(policy.staleGrants('s')).toEqual([]);
  });

  it('grants saved before sources existed hold for any file', () => {
    const snapshot = skills('/anywhere/web');
    const policy = new SkillPolicy(() => snapshot, { state: { s: { enabled: ['web'], disabled: [] } } });
    expect(policy.isToolAllowed('s', 'fetch_url')).toBe(true);
  });

  it('reads grants from its store once per key and saves every change there', () => {
    const snapshot = skills('/b/web');
    const saved = new Map<string, unknown>([['s', { enabled: ['web'], disabled: [] }]]);
    let reads = 0;
    const policy = new SkillPolicy(() => snapshot, {
      store: {
        get: (key) => {
          reads++;
          return saved.get(key) as never;
        },
        set: (key, grants) => saved.set(key, grants),
      },
    });
    expect(policy.isToolAllowed('s', 'fetch_url')).toBe(true);
    expect(policy.isToolAllowed('s', 'fetch_url')).toBe(true);
    expect(reads).toBe(1);
    policy.disable('s', 'web');
    expect(saved.get('s')).toEqual({ enabled: [], disabled: ['web'] });
    policy.enable('t', 'web');
    expect(saved.get('t')).toEqual({
      enabled: ['web'],
      disabled: [],
      sources: { web: 'explicit:/b/web/SKILL.md' },
    });
    policy.reset('t');
    expect(saved.get('t')).toEqual({ enabled: [], disabled: [] });
  });

  it('forgets a key from memory only: the next question reads its grants from the store again', () => {
    const snapshot = skills('/b/web');
    const saved = new Map<string, unknown>([['s', { enabled: ['web'], disabled: [] }]]);
    let reads = 0;
    const policy = new SkillPolicy(() => snapshot, {
      store: {
        get: (key) => {
          reads++;
          return saved.get(key) as never;
        },
        set: (key, grants) => saved.set(key, grants),
      },
    });
    expect(policy.isToolAllowed('s', 'fetch_url')).toBe(true);
    policy.forget('s');
    expect(policy.toJSON()).toEqual({});
    expect(saved.get('s')).toEqual({ enabled: ['web'], disabled: [] });
    expect(policy.isToolAllowed('s', 'fetch_url')).toBe(true);
    expect(reads).toBe(2);
  });
});

describe('SkillPolicy: what a long-running server keeps', () => {
  const snapshot = snapshotFromSkills([
    makeSkill('shell', { tools: ['run_bash'], enabledByDefault: false }),
    makeSkill('notes', { enabledByDefault: false }),
  ]);
  /** A policy as `birdie serve` uses it, counting how often it evaluates skills (the ceiling is asked each time). */
  const counted = () => {
    const asked = { count: 0 };
    const policy = new SkillPolicy(() => snapshot, {
      ceiling: {
        skill: () => {
          asked.count++;
          return true;
        },
      },
    });
    return { policy, asked };
  };

  it('sessions loaded with the same grants share one result, so the cache does not grow per session', () => {
    const { policy, asked } = counted();
    for (let i = 0; i < 1000; i++) {
      // Every served turn loads its session's grants (empty, or the same `skills.enable` grants) before asking.
      policy.setGrants(`session-${i}`, { enabled: i % 2 ? ['shell'] : [], disabled: [] });
      policy.allowedSkills(`session-${i}`);
    }
    // One evaluation (two skills asked about) per distinct grants, not per session.
    expect(asked.count).toBe(2 * 2);
    expect(names(policy.allowedSkills('session-1'))).toEqual(['shell']);
    expect(names(policy.allowedSkills('session-2'))).toEqual([]);
  });

  it('forgets the results of grants no session has used lately, and evaluates them again when asked', () => {
    const { policy, asked } = counted();
    const grantSets = 2000;
    for (let i = 0; i < grantSets; i++) {
      // Distinct grants per session (names of skills that do not exist count too).
      policy.setGrants(`session-${i}`, { enabled: ['shell', `gone-${i}`], disabled: [] });
      policy.allowedSkills(`session-${i}`);
    }
    expect(asked.count).toBe(2 * grantSets);
    // The oldest result was dropped (the cache is bounded); the newest is still kept.
    expect(names(policy.allowedSkills('session-0'))).toEqual(['shell']);
    expect(asked.count).toBe(2 * grantSets + 2);
    policy.allowedSkills(`session-${grantSets - 1}`);
    expect(asked.count).toBe(2 * grantSets + 2);
  });

  it('a change of grants is seen at once, also back to grants another session has', () => {
    const { policy } = counted();
    policy.setGrants('a', { enabled: ['shell'], disabled: [] });
    policy.setGrants('b', { enabled: [], disabled: [] });
    expect(names(policy.allowedSkills('a'))).toEqual(['shell']);
    expect(names(policy.allowedSkills('b'))).toEqual([]);
    policy.enable('b', 'shell');
    expect(names(policy.allowedSkills('b'))).toEqual(['shell']);
    policy.disable('a', 'shell');
    expect(names(policy.allowedSkills('a'))).toEqual([]);
    policy.reset('a');
    expect(names(policy.allowedSkills('a'))).toEqual([]);
    policy.setGrants('a', { enabled: ['SHELL'], disabled: [] });
    expect(names(policy.allowedSkills('a'))).toEqual(['shell']);
  });
});
