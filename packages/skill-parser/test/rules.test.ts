import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { RULES } from '../src/index.js';

it('describes every rule with a kebab-case id, a severity, a meaning and a fix', () => {
  for (const [id, rule] of Object.entries(RULES)) {
    expect(id).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(['error', 'warning', 'info']).toContain(rule.severity);
    expect(rule.meaning.length).toBeGreaterThan(10);
    expect(rule.fix.length).toBeGreaterThan(5);
  }
});

it('has a test with an exact position for every rule', () => {
  const root = fileURLToPath(new URL('./fixtures', import.meta.url));
  const covered = new Set<string>();
  const folders = readdirSync(root)
    .filter((name) => name !== 'agents')
    .concat(readdirSync(`${root}/agents`).map((name) => `agents/${name}`));
  for (const name of folders) {
    const expected = JSON.parse(readFileSync(`${root}/${name}/expected.json`, 'utf8')) as {
      messages: string[];
    };
    for (const message of expected.messages) covered.add(message.split(' ')[1]!);
  }
  // Rules about files and folders rather than text are pinned in discover.test.ts / parse-skill.test.ts, and
  // `parse-failed` (a failure no rule foresaw) in src/parse-skill.test.ts.
  // `skill-file-name` (a SKILL.MD) and `text-encoding` (a file's bytes, before any text) in discover.test.ts, and
  // `non-standard-key` (strict only) in parse-skill.test.ts.
  for (const id of [
    'text-encoding',
    'file-too-large',
    'unreadable-file',
    'resources-capped',
    'parse-failed',
    'skill-file-name',
    'non-standard-key',
  ])
    covered.add(id);
  expect([...covered].sort()).toEqual(Object.keys(RULES).sort());
});
