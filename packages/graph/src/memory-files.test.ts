import { describe, expect, it } from 'vitest';
import { memoryFilesTier } from './memory-files.js';

const home = { path: '/home/u/.birdie/AGENTS.md', text: 'Answer in English.\n' };
const repo = { path: '/repo/AGENTS.md', text: 'Run pnpm test before committing.' };
const pkg = { path: '/repo/pkg/AGENTS.md', text: 'This package is ESM only.' };

describe('memoryFilesTier', () => {
  it('puts each file in a block, general to specific, byte-identical for equal input', () => {
    const tier = memoryFilesTier([home, repo, pkg], 10_000);
    expect(tier).toBe(
      [
        '# Project instructions (AGENTS.md)',
        '<memory-file path="/home/u/.birdie/AGENTS.md">\nAnswer in English.\n</memory-file>',
        '',
        '<memory-file path="/repo/AGENTS.md">\nRun pnpm test before committing.\n</memory-file>',
        '',
        '<memory-file path="/repo/pkg/AGENTS.md">\nThis package is ESM only.\n</memory-file>',
      ].join('\n'),
    );
    expect(memoryFilesTier([{ ...home }, { ...repo }, { ...pkg }], 10_000)).toBe(tier);
  });

  it('keeps the most specific files whole first when over budget, cuts one, names the ones left out', () => {
    const tier = memoryFilesTier([home, repo, pkg], pkg.text.length + 10);
    expect(tier).toBe(
      [
        '# Project instructions (AGENTS.md)',
        '<memory-file path="/repo/AGENTS.md">\nRun pnpm t\n[truncated: 22 more characters]\n</memory-file>',
        '',
        '<memory-file path="/repo/pkg/AGENTS.md">\nThis package is ESM only.\n</memory-file>',
        '',
        '(1 more memory file left out: /home/u/.birdie/AGENTS.md)',
      ].join('\n'),
    );
  });

  it('is empty for no files or only blank ones', () => {
    expect(memoryFilesTier([], 100)).toBe('');
    expect(memoryFilesTier([{ path: '/x/AGENTS.md', text: ' \n' }], 100)).toBe('');
  });
});
