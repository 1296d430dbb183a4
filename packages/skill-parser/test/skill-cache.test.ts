import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentDefinition,
  discoverAgents,
  discoverSkills,
  type Skill,
  type SkillCache,
} from '../src/index.js';
import { skillText, tempTree } from './helpers.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A cache as an application keeps one, through JSON (a file), counting what the parser asks. */
function jsonCache() {
  const entries = new Map<string, string>();
  const calls = { hits: 0, misses: 0, sets: 0 };
  const cache: SkillCache = {
    get(key) {
      const text = entries.get(key);
      if (text === undefined) calls.misses++;
      else calls.hits++;
      return text === undefined ? undefined : (JSON.parse(text) as Skill | AgentDefinition);
    },
    set(key, definition) {
      calls.sets++;
      entries.set(key, JSON.stringify(definition));
    },
  };
  return { cache, calls, entries };
}

describe('discoverSkills with a cache', () => {
  it('gives the same skills as a parse, read back from the cache on the next discovery', async () => {
    const made = await tempTree({
      'alpha/SKILL.md': skillText('alpha', 'Alpha body.'),
      'alpha/reference/a.md': 'a',
      'beta/SKILL.md': skillText('beta'),
    });
    cleanup = made.cleanup;
    const { cache, calls } = jsonCache();
    const plain = await discoverSkills(made.root);
    const first = await discoverSkills(made.root, { cache });
    expect(calls).toEqual({ hits: 0, misses: 2, sets: 2 });
    const second = await discoverSkills(made.root, { cache });
    expect(calls).toEqual({ hits: 2, misses: 2, sets: 2 });
    expect(first).toEqual(plain);
    expect(second).toEqual(plain);
  });

  it('parses again when the text or the folder listing changed, and never caches a skill with messages', async () => {
    const made = await tempTree({ 'alpha/SKILL.md': skillText('alpha'), 'Bad/SKILL.md': skillText('Bad') });
    cleanup = made.cleanup;
    const { cache, calls, entries } = jsonCache();
    const first = await discoverSkills(made.root, { cache });
    // `Bad` is not a valid name: its warning comes back on every discovery, so it is parsed every time.
    expect(first.messages.length).toBeGreaterThan(0);
    expect(entries.size).toBe(1);

    await writeFile(join(made.root, 'alpha', 'SKILL.md'), skillText('alpha', 'Changed body.'));
    const changed = await discoverSkills(made.root, { cache });
    expect(changed.skills.find((s) => s.name === 'alpha')?.body).toContain('Changed body.');
    expect(changed.messages).toEqual(
      first.messages.map((m) => expect.objectContaining({ ruleId: m.ruleId })),
    );

    await writeFile(join(made.root, 'alpha', 'notes.md'), 'n');
    const listed = await discoverSkills(made.root, { cache });
    expect(listed.skills.find((s) => s.name === 'alpha')?.resources).toEqual(['notes.md']);
    expect(calls.hits).toBe(0);
  });
});

describe('discoverAgents with a cache', () => {
  it('gives the same agents as a parse, read back from the cache, and parses an edited file again', async () => {
    const agent = (name: string, body: string) =>
      `---\nname: ${name}\ndescription: The ${name} agent.\n---\n\n${body}\n`;
    const made = await tempTree({
      'alpha.md': agent('alpha', 'You are alpha.'),
      'beta.md': agent('beta', 'Hi.'),
    });
    cleanup = made.cleanup;
    const { cache, calls } = jsonCache();
    const plain = await discoverAgents(made.root);
    expect(await discoverAgents(made.root, { cache })).toEqual(plain);
    expect(await discoverAgents(made.root, { cache })).toEqual(plain);
    expect(calls).toEqual({ hits: 2, misses: 2, sets: 2 });

    await writeFile(join(made.root, 'beta.md'), agent('beta', 'You are beta now.'));
    const edited = await discoverAgents(made.root, { cache });
    expect(edited.agents.find((a) => a.name === 'beta')?.body).toContain('You are beta now.');
    expect(calls).toEqual({ hits: 3, misses: 3, sets: 3 });
  });
});
