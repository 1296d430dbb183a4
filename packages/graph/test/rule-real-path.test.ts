import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalRule, compileRules } from '../src/index.js';

const WRITE = { name: 'write_file', skill: 'filesystem' };
const rule = (effect: ApprovalRule['effect'], pattern: string): ApprovalRule => ({
  effect,
  pattern,
  source: { kind: 'user' },
});

let base: string;
let root: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'rule-real-path-'));
  root = join(base, 'ws');
  await mkdir(join(root, 'docs'), { recursive: true });
  await mkdir(join(root, '.github', 'workflows'), { recursive: true });
  await mkdir(join(base, 'outside'));
  await symlink('../.github', join(root, 'docs', 'gh'));
  await symlink('../../outside', join(root, 'docs', 'out'));
  await symlink('nowhere', join(root, 'docs', 'dangling'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('path rules match the real path in the workspace', () => {
  const decide = (rules: ApprovalRule[], path: string) =>
    compileRules(rules).decide({ tool: WRITE, args: { path, content: '' }, root })?.effect;

  it('a link into a denied folder is denied; ask rules too', () => {
    expect(decide([rule('deny', 'write_file(path=.github/**)')], 'docs/gh/workflows/ci.yml')).toBe('deny');
    expect(decide([rule('ask', 'write_file(path=.github/**)')], 'docs/gh/new/ci.yml')).toBe('ask');
    expect(decide([rule('deny', 'write_file(path=.github/**)')], '.github/workflows/x.yml')).toBe('deny');
  });

  it('an allow rule does not stretch through a link, nor out of the workspace', () => {
    const allow = [rule('allow', 'write_file(path=docs/**)')];
    expect(decide(allow, 'docs/plain.md')).toBe('allow');
    expect(decide(allow, 'docs/new/deeper.md')).toBe('allow');
    expect(decide(allow, 'docs/gh/workflows/ci.yml')).toBeUndefined();
    expect(decide(allow, 'docs/out/x')).toBeUndefined();
    expect(decide(allow, 'docs/dangling')).toBeUndefined();
    expect(decide([rule('allow', 'write_file(path=.github/**)')], 'docs/gh/workflows/ci.yml')).toBe('allow');
  });

  it('without a workspace, or for a value that is not a path, the text decides as before', () => {
    expect(
      compileRules([rule('allow', 'write_file(path=docs/**)')]).decide({
        tool: WRITE,
        args: { path: 'docs/gh/x' },
      })?.effect,
    ).toBe('allow');
    expect(
      compileRules([rule('allow', 'greet(name=hel*)')]).decide({
        tool: { name: 'greet' },
        args: { name: 'hello' },
        root,
      })?.effect,
    ).toBe('allow');
  });
});
