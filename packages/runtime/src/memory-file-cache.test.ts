import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { cachedMemoryFiles } from './memory-file-cache.js';

const reads = vi.hoisted(() => ({ count: 0 }));
vi.mock('@birdie/graph', async (original) => {
  const graph = await original<typeof import('@birdie/graph')>();
  return {
    ...graph,
    findMemoryFiles: (options: Parameters<typeof graph.findMemoryFiles>[0]) => {
      reads.count += 1;
      return graph.findMemoryFiles(options);
    },
  };
});

// The first call imports @birdie/graph, which takes long on a loaded machine: done once, outside the tests' time.
beforeAll(async () => {
  await import('@birdie/graph');
}, 180_000);

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A repository with a project folder inside it and a user file; every file dated an hour ago (settled). */
function box() {
  const root = mkdtempSync(join(tmpdir(), 'birdie-memory-cache-'));
  roots.push(root);
  const repo = join(root, 'repo');
  const cwd = join(repo, 'app');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const userFile = join(root, 'home', 'AGENTS.md');
  mkdirSync(join(root, 'home'));
  const write = (path: string, text: string, hoursAgo = 1) => {
    writeFileSync(path, text);
    const at = new Date(Date.now() - hoursAgo * 3_600_000);
    utimesSync(path, at, at);
  };
  write(userFile, 'user rules');
  write(join(repo, 'AGENTS.md'), 'repo rules');
  return { root, repo, cwd, userFile, write, options: { cwd, userFiles: [userFile], names: ['AGENTS.md'] } };
}

const texts = (files: Array<{ text: string }>) => files.map((f) => f.text);

it('reads a folder once while nothing changes, and again once a file is edited, even to the same size', async () => {
  const { repo, write, options } = box();
  const owner = {};
  reads.count = 0;
  expect(texts(await cachedMemoryFiles(owner, options))).toEqual(['user rules', 'repo rules']);
  expect(texts(await cachedMemoryFiles(owner, options))).toEqual(['user rules', 'repo rules']);
  expect(reads.count).toBe(1);
  write(join(repo, 'AGENTS.md'), 'REPO RULES', 2);
  expect(texts(await cachedMemoryFiles(owner, options))).toEqual(['user rules', 'REPO RULES']);
  expect(reads.count).toBe(2);
});

it('sees a memory file added or removed, and a new repository root, on the next call', async () => {
  const { cwd, userFile, write, options } = box();
  const owner = {};
  await cachedMemoryFiles(owner, options);
  write(join(cwd, 'AGENTS.md'), 'app rules');
  expect(texts(await cachedMemoryFiles(owner, options))).toEqual(['user rules', 'repo rules', 'app rules']);
  rmSync(userFile);
  expect(texts(await cachedMemoryFiles(owner, options))).toEqual(['repo rules', 'app rules']);
  // A `.git` in the working folder makes it the root: the parent's file is no longer the project's.
  mkdirSync(join(cwd, '.git'));
  expect(texts(await cachedMemoryFiles(owner, options))).toEqual(['app rules']);
});

it('keeps nothing of a file changed moments ago, and keeps folders, trust and owners apart', async () => {
  const { repo, write, options } = box();
  const owner = {};
  write(join(repo, 'AGENTS.md'), 'fresh rules', 0);
  reads.count = 0;
  await cachedMemoryFiles(owner, options);
  expect(texts(await cachedMemoryFiles(owner, options))).toEqual(['user rules', 'fresh rules']);
  expect(reads.count).toBe(2);
  write(join(repo, 'AGENTS.md'), 'repo rules');
  await cachedMemoryFiles(owner, options);
  expect(texts(await cachedMemoryFiles(owner, { ...options, project: false }))).toEqual(['user rules']);
  expect(texts(await cachedMemoryFiles({}, options))).toEqual(['user rules', 'repo rules']);
  expect(texts(await cachedMemoryFiles(owner, { ...options, cwd: repo }))).toEqual([
    'user rules',
    'repo rules',
  ]);
});
