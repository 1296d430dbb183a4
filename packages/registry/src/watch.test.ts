import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { skillText, writeSkill } from '../test/skill-files.js';
import { loadRegistry } from './registry.js';
import type { Registry } from './types.js';
import { MAX_EMPTY_FOLDER_WATCHES } from './watch.js';

/** Resolves once `check` holds for the registry's current snapshot; fails after `limitMs`. */
async function eventually(
  registry: Registry,
  check: (names: string[]) => boolean,
  limitMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const names = registry.current().skills.map((s) => `${s.name}:${s.description}`);
    if (check(names)) return;
    if (Date.now() > deadline) throw new Error(`condition not reached; skills are ${JSON.stringify(names)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('watch', () => {
  it('reloads when a SKILL.md is edited, so the next turn sees it', async (t) => {
    const root = await tempDir(t);
    await writeSkill(root, { name: 'notes', description: 'before' });
    const registry = await loadRegistry({ dirs: [root] });
    const reloads: unknown[][] = [];
    const watcher = registry.watch({ debounceMs: 30, onReload: (messages) => reloads.push(messages) });
    t.onTestFinished(() => watcher.close());
    const held = registry.current();
    await writeSkill(root, { name: 'notes', description: 'after' });
    await eventually(registry, (names) => names.includes('notes:after'));
    expect(held.skills[0]?.description).toBe('before');
    expect(reloads.length).toBeGreaterThan(0);
  });

  it('picks up new skill folders and forgets deleted ones', async (t) => {
    const root = await tempDir(t);
    await writeSkill(root, { name: 'one' });
    await mkdir(join(root, 'not-yet-a-skill'));
    const registry = await loadRegistry({ dirs: [root] });
    const watcher = registry.watch({ debounceMs: 30 });
    t.onTestFinished(() => watcher.close());
    await writeFile(join(root, 'not-yet-a-skill', 'SKILL.md'), skillText({ name: 'now-a-skill' }));
    await eventually(registry, (names) => names.some((n) => n.startsWith('now-a-skill:')));
    await writeSkill(root, { name: 'two' });
    await eventually(registry, (names) => names.some((n) => n.startsWith('two:')));
    await writeSkill(root, { name: 'two', description: 'edited in a new folder' });
    await eventually(registry, (names) => names.includes('two:edited in a new folder'));
    await rm(join(root, 'one'), { recursive: true });
    await eventually(registry, (names) => names.length === 2);
  });

  it('survives the skills folder appearing, disappearing and coming back', async (t) => {
    const root = await tempDir(t);
    const skills = join(root, 'project', '.birdie', 'skills');
    const registry = await loadRegistry({ dirs: [skills] });
    const errors: Error[] = [];
    const watcher = registry.watch({ debounceMs: 30, onError: (error) => errors.push(error) });
    t.onTestFinished(() => watcher.close());

    await mkdir(join(root, 'project'));
    await mkdir(join(root, 'project', '.birdie'));
    await mkdir(skills);
    await writeSkill(skills, { name: 'late' });
    await eventually(registry, (names) => names.some((n) => n.startsWith('late:')));

    await rm(join(root, 'project', '.birdie'), { recursive: true });
    await eventually(registry, (names) => names.length === 0);

    await mkdir(join(skills, 'back'), { recursive: true });
    await writeFile(join(skills, 'back', 'SKILL.md'), skillText({ name: 'back' }));
    await eventually(registry, (names) => names.some((n) => n.startsWith('back:')));
    expect(errors).toEqual([]);
  });

  it('still sees skill edits when thousands of empty folders exceed the watch budget', async (t) => {
    const root = await tempDir(t);
    for (let i = 0; i < MAX_EMPTY_FOLDER_WATCHES + 200; i += 200) {
      await Promise.all(
        Array.from({ length: 200 }, (_, k) => mkdir(join(root, `empty-${String(i + k).padStart(5, '0')}`))),
      );
    }
    await writeSkill(root, { name: 'zzz-last', description: 'before' });
    const registry = await loadRegistry({ dirs: [root] });
    const watcher = registry.watch({ debounceMs: 30 });
    t.onTestFinished(() => watcher.close());
    await writeSkill(root, { name: 'zzz-last', description: 'after' });
    await eventually(registry, (names) => names.includes('zzz-last:after'));
  });

  it('debounces a burst of writes into fewer reloads, ending on the last content', async (t) => {
    const root = await tempDir(t);
    await writeSkill(root, { name: 'busy', description: 'v0' });
    const registry = await loadRegistry({ dirs: [root] });
    let reloads = 0;
    const watcher = registry.watch({ debounceMs: 200, onReload: () => reloads++ });
    t.onTestFinished(() => watcher.close());
    for (let i = 1; i <= 20; i++) await writeSkill(root, { name: 'busy', description: `v${i}` });
    await eventually(registry, (names) => names.includes('busy:v20'));
    expect(reloads).toBeGreaterThan(0);
    expect(reloads).toBeLessThan(20);
  });

  it('stops reloading once closed', async (t) => {
    const root = await tempDir(t);
    await writeSkill(root, { name: 'quiet', description: 'v1' });
    const registry = await loadRegistry({ dirs: [root] });
    let reloads = 0;
    const watcher = registry.watch({ debounceMs: 20, onReload: () => reloads++ });
    watcher.close();
    await writeSkill(root, { name: 'quiet', description: 'v2' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reloads).toBe(0);
    expect(registry.current().version).toBe(1);
    watcher.close();
  });
});
