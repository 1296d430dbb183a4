import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { isRegistryError, loadRegistry, SkillPolicy, type TrustDecision } from './index.js';

/** A project folder with one skill nobody trusted, as a cloned repository brings it. */
async function untrustedProject(t: Parameters<typeof tempDir>[0]) {
  const root = await tempDir(t);
  const skill = join(root, 'proj', '.birdie', 'skills', 'evil');
  await mkdir(skill, { recursive: true });
  await writeFile(
    join(skill, 'SKILL.md'),
    '---\nname: evil\ndescription: A project skill nobody trusted.\n---\n## Tools\n### pwn\ndescription: x.\nentrypoint: bash:id\nschema: { type: object, properties: {} }\n',
  );
  return [{ path: join(root, 'proj', '.birdie', 'skills'), layer: 'project' as const }];
}

describe('an async trust decision is awaited, and only `true` trusts', () => {
  it('an async callback answering false (or nothing stored) leaves the folder untrusted', async (t) => {
    const dirs = await untrustedProject(t);
    const stored = new Map<string, { digest: string }>();
    for (const trust of [
      async () => false,
      async (w: { path: string; digest: string }) => stored.get(w.path)?.digest === w.digest,
    ]) {
      const snapshot = (await loadRegistry({ dirs, trust })).current();
      expect(snapshot.skills.map((s) => s.name)).toEqual([]);
      expect(snapshot.untrusted).toHaveLength(1);
    }
  });

  it('an async callback answering true trusts the folder, on load and on reload', async (t) => {
    const dirs = await untrustedProject(t);
    const registry = await loadRegistry({ dirs, trust: async () => true });
    expect(registry.current().skills.map((s) => s.name)).toEqual(['evil']);
    await registry.reload();
    expect(registry.current().skills.map((s) => s.name)).toEqual(['evil']);
  });

  it('an answer that is merely truthy does not trust (a plain-JS callback returning a record)', async (t) => {
    const dirs = await untrustedProject(t);
    const truthy = (() => ({ digest: 'x' })) as unknown as TrustDecision;
    const snapshot = (await loadRegistry({ dirs, trust: truthy })).current();
    expect(snapshot.skills).toEqual([]);
    expect(snapshot.untrusted).toHaveLength(1);
  });
});

describe('SkillPolicy refuses asynchronous answers instead of widening the policy', () => {
  async function twoSkills(t: Parameters<typeof tempDir>[0]) {
    const dir = await tempDir(t);
    for (const name of ['shell', 'notes']) {
      await mkdir(join(dir, name));
      await writeFile(
        join(dir, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: ${name}.\nenabled_by_default: true\n---\n## Tools\n### ${name}_run\ndescription: x.\nentrypoint: bash:id\nschema: { type: object, properties: {} }\n`,
      );
    }
    return loadRegistry({ dirs: [{ path: dir, layer: 'user' }] });
  }
  const asyncRefusal = (e: unknown) => isRegistryError(e, 'async-callback');

  it('an async grants store: a saved "disable shell" is never lost silently', async (t) => {
    const registry = await twoSkills(t);
    const saved: Record<string, { enabled: string[]; disabled: string[] }> = {
      s1: { enabled: [], disabled: ['shell'] },
    };
    const store = { get: async (k: string) => saved[k], set: async () => {} };
    const policy = new SkillPolicy(registry, { store: store as never });
    expect(() => policy.allowedSkills('s1')).toThrow(
      expect.objectContaining({ code: 'async-callback', message: expect.stringContaining('store.get') }),
    );
    let thrown: unknown;
    try {
      policy.isToolAllowed('s1', 'shell_run');
    } catch (e) {
      thrown = e;
    }
    expect(asyncRefusal(thrown)).toBe(true);
  });

  it('an async ceiling: the operator limit is never widened silently', async (t) => {
    const registry = await twoSkills(t);
    const skillCeiling = new SkillPolicy(registry, {
      ceiling: { skill: (async (s: { name: string }) => s.name === 'notes') as never },
    });
    expect(() => skillCeiling.allowedSkills('k')).toThrow(
      expect.objectContaining({ code: 'async-callback' }),
    );
    const agentCeiling = new SkillPolicy(registry, { ceiling: { agent: (async () => false) as never } });
    expect(() => agentCeiling.isAgentAllowed('writer')).toThrow(
      expect.objectContaining({ code: 'async-callback' }),
    );
  });

  it('an async grants store set is refused too', async (t) => {
    const registry = await twoSkills(t);
    const store = { get: () => undefined, set: async () => {} };
    const policy = new SkillPolicy(registry, { store: store as never });
    expect(() => policy.disable('s1', 'shell')).toThrow(expect.objectContaining({ code: 'async-callback' }));
  });

  it('a refused async store set (it rejects) leaves the policy as it was: the change is not kept in memory', async (t) => {
    const registry = await twoSkills(t);
    // Nobody awaits the rejection: the policy takes it in, rather than leaving the process an unhandled rejection.
    const store = { get: () => undefined, set: () => Promise.reject(new Error('the database is read-only')) };
    const policy = new SkillPolicy(registry, { store: store as never });
    expect(() => policy.disable('s1', 'shell')).toThrow(expect.objectContaining({ code: 'async-callback' }));
    expect(policy.grants('s1')).toEqual({ enabled: [], disabled: [] });
    expect(policy.allowedSkills('s1').map((s) => s.name)).toEqual(['notes', 'shell']);
    expect(policy.toJSON()).toEqual({});
  });

  it('a store whose set throws leaves the policy as it was (enable, disable and reset alike)', async (t) => {
    const registry = await twoSkills(t);
    const saved = { s1: { enabled: [], disabled: ['notes'] } };
    let refuse = false;
    const store = {
      get: (key: string) => saved[key as 's1'],
      set: () => {
        if (refuse) throw new Error('disk full');
      },
    };
    const policy = new SkillPolicy(registry, { store });
    expect(policy.allowedSkills('s1').map((s) => s.name)).toEqual(['shell']);
    refuse = true;
    expect(() => policy.disable('s1', 'shell')).toThrow('disk full');
    expect(() => policy.enable('s1', 'notes')).toThrow('disk full');
    expect(() => policy.reset('s1')).toThrow('disk full');
    expect(policy.grants('s1')).toEqual({ enabled: [], disabled: ['notes'] });
    expect(policy.allowedSkills('s1').map((s) => s.name)).toEqual(['shell']);
  });
});
