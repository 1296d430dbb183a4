import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateDecisions } from '../src/approvals.js';
import type { ApprovalRequest } from '../src/index.js';

// Review finding: the check that a session pattern covers the call it answers matched path arguments as written,
// while the rule, once in force, matches them by their real path in the workspace.

let base: string;
let root: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'session-pattern-real-path-')));
  root = join(base, 'ws');
  await mkdir(join(root, 'docs'), { recursive: true });
  await mkdir(join(root, '.github'), { recursive: true });
  await mkdir(join(base, 'outside'));
  await symlink(join(base, 'outside'), join(root, 'docs', 'out'));
  await symlink('../.github', join(root, 'docs', 'gh'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const request = (path: string) =>
  ({
    id: 'c1',
    tool: 'write_file',
    skill: 'filesystem',
    args: { path, content: '' },
    digest: 'd',
    description: 'write',
  }) as unknown as ApprovalRequest;

const approve = (pattern: string) => ({
  c1: { type: 'approve' as const, scope: 'session' as const, pattern },
});

describe('a session pattern covers its call by the real path, as the rule will', () => {
  it('a pattern the lexical path matches but the real path (outside the workspace) does not is refused', () => {
    expect(() =>
      validateDecisions([request('docs/out/x')], approve('write_file(path=docs/**)'), root),
    ).toThrow(/does not cover this call/);
  });

  it('a pattern the real path matches covers the call written through the link', () => {
    expect(() =>
      validateDecisions([request('docs/gh/ci.yml')], approve('write_file(path=.github/**)'), root),
    ).not.toThrow();
  });

  it('a path without a link is decided as written', () => {
    expect(() =>
      validateDecisions([request('docs/plain.md')], approve('write_file(path=docs/**)'), root),
    ).not.toThrow();
  });
});
