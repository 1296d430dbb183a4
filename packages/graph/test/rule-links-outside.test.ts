import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalRule, compileRules } from '../src/index.js';

// Review finding: a link that leads out of the workspace was not checked against absolute deny paths.

const WRITE = { name: 'write_file', skill: 'filesystem' };
const rule = (effect: ApprovalRule['effect'], pattern: string): ApprovalRule => ({
  effect,
  pattern,
  source: { kind: 'user' },
});

let base: string;
let root: string;
let outside: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'rule-links-outside-')));
  root = join(base, 'ws');
  outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(join(outside, 'keys'), { recursive: true });
  await symlink('/etc', join(root, 'w'));
  await symlink(outside, join(root, 'out'));
  // Dangling links: to a file not made yet (writing `dangling` creates it there), and through a second link.
  await symlink(join(outside, 'keys', 'new'), join(root, 'dangling'));
  await symlink(join(root, 'dangling'), join(root, 'twice'));
  await symlink(join(root, 'loop-b'), join(root, 'loop-a'));
  await symlink(join(root, 'loop-a'), join(root, 'loop-b'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const decide = (rules: ApprovalRule[], path: string) =>
  compileRules(rules).decide({ tool: WRITE, args: { path, content: '' }, root })?.effect;

describe('an absolute deny or ask path covers where a path really leads', () => {
  it('a workspace link to /etc is denied by write_file(path=/etc/**)', () => {
    expect(decide([rule('deny', 'write_file(path=/etc/**)')], 'w/x')).toBe('deny');
    expect(decide([rule('deny', 'write_file(path=/etc/**)')], './w/cron.d/job')).toBe('deny');
  });

  it('a link to any outside folder is denied or asked by that folder’s absolute path', () => {
    expect(decide([rule('deny', `write_file(path=${outside}/**)`)], 'out/keys/id')).toBe('deny');
    expect(decide([rule('ask', `write_file(path=${outside}/keys/*)`)], 'out/keys/id')).toBe('ask');
  });

  it('a relative path that climbs out of the workspace is denied by the absolute path it names', () => {
    expect(decide([rule('deny', `write_file(path=${outside}/**)`)], '../outside/keys/id')).toBe('deny');
  });

  it('a dangling link is denied by the absolute path of the file writing it would create', () => {
    expect(decide([rule('deny', `write_file(path=${outside}/**)`)], 'dangling')).toBe('deny');
    expect(decide([rule('deny', `write_file(path=${outside}/keys/new)`)], 'twice')).toBe('deny');
  });

  it('a link loop is never allowed by a workspace pattern', () => {
    expect(decide([rule('allow', 'write_file(path=**)')], 'loop-a')).not.toBe('allow');
  });

  it('a path elsewhere is not', () => {
    expect(decide([rule('deny', `write_file(path=${outside}/**)`)], 'in/x')).toBeUndefined();
    expect(decide([rule('deny', 'write_file(path=/etc/**)')], 'etc/x')).toBeUndefined();
  });
});
