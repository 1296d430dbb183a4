import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalRequest } from '@birdie/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideApprovals } from './approval-answers.js';
import { ApprovalBatch } from './approval-batch.js';

// Review finding: a session pattern given earlier in a batch covered a later call by its path as written, while the
// rule, once in force, matches the real path in the workspace (a symbolic link followed).

let base: string;
let root: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'approval-batch-real-path-')));
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

const write = (id: string, path: string): ApprovalRequest =>
  ({
    id,
    tool: 'write_file',
    args: { path, content: '' },
    description: 'write',
  }) as unknown as ApprovalRequest;

// The first pattern loads @birdie/graph's rule engine: slow on a loaded machine.
describe('a batch covers a path by where it really leads', { timeout: 60_000 }, () => {
  it('a pattern does not cover a call whose link leads out of the workspace', async () => {
    const batch = new ApprovalBatch(root);
    batch.allowPattern('write_file(path=docs/**)');
    expect(await batch.covered(write('1', 'docs/out/x'))).toBeUndefined();
    expect(await batch.covered(write('2', 'docs/plain.md'))).toMatchObject({
      by: 'write_file(path=docs/**)',
    });
  });

  it('a pattern covers a call whose link leads into what it names', async () => {
    const batch = new ApprovalBatch(root);
    batch.allowPattern('write_file(path=.github/**)');
    expect(await batch.covered(write('1', 'docs/gh/ci.yml'))).toMatchObject({
      by: 'write_file(path=.github/**)',
    });
  });

  it('decideApprovals asks about the call through the link', async () => {
    const asked: string[] = [];
    const { decisions } = await decideApprovals(
      [write('1', 'docs/a.md'), write('2', 'docs/out/x')],
      async (r) => {
        asked.push(r.id);
        return r.id === '1' ? { kind: 'pattern', pattern: 'write_file(path=docs/**)' } : { kind: 'once' };
      },
      () => {},
      root,
    );
    expect(asked).toEqual(['1', '2']);
    expect(decisions['2']).toEqual({ type: 'approve' });
  });
});
