import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { skillCachePath } from './skill-cache.js';
import { openRegistry } from './skills.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function box() {
  const root = mkdtempSync(join(tmpdir(), 'birdie-skill-cache-'));
  roots.push(root);
  const skill = (dir: string, name: string) => {
    mkdirSync(join(dir, name), { recursive: true });
    writeFileSync(
      join(dir, name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: The ${name} skill, for tests.\n---\n\nUse ${name}.\n`,
    );
  };
  const bundled = join(root, 'bundled');
  const cwd = join(root, 'work');
  skill(bundled, 'alpha');
  skill(join(cwd, '.birdie', 'skills'), 'gamma');
  const env = { HOME: join(root, 'home'), BIRDIE_HOME: join(root, 'home', '.birdie') };
  const io = { env, cwd, stderr: { write: () => true }, bundled: { skills: bundled } };
  return { io, file: skillCachePath(env) };
}

const names = (file: string) =>
  Object.values(JSON.parse(readFileSync(file, 'utf8')).skills as Record<string, { name: string }>).map(
    (s) => s.name,
  );

it("keeps the bundled layer's parsed skills in the user's cache folder and reads them back, never a project's", async () => {
  const { io, file } = box();
  expect(file).toBe(join(io.env.HOME, '.cache', 'birdie', 'skills.json'));
  const first = await openRegistry(io, {}, () => true);
  expect(names(file)).toEqual(['alpha']);
  const second = await openRegistry(io, {}, () => true);
  expect(second.current().skills).toEqual(first.current().skills);
  expect(second.current().skills.map((s) => s.name)).toEqual(['alpha', 'gamma']);
});

it('a damaged cache file is parsed around and replaced', async () => {
  const { io, file } = box();
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, '{"format":1,"skills":');
  const registry = await openRegistry(io, {});
  expect(registry.current().skills.map((s) => s.name)).toEqual(['alpha']);
  expect(names(file)).toEqual(['alpha']);
});

it('an unwritable cache folder only means parsing again', async () => {
  const { io, file } = box();
  mkdirSync(join(io.env.HOME, '.cache'), { recursive: true });
  writeFileSync(join(io.env.HOME, '.cache', 'birdie'), 'a file where the folder would go');
  const registry = await openRegistry(io, {});
  expect(registry.current().skills.map((s) => s.name)).toEqual(['alpha']);
  expect(() => readFileSync(file)).toThrow();
});
