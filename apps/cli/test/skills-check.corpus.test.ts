import { join } from 'node:path';
import { corpusRoot } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { folders, pinnedCheck, snapshot } from './helpers/pinned-check.js';

/**
 * `birdie skills check` (and `skills list --json`) over the shared corpus, read in place (`$BIRDIE_CORPUS`, else
 * `../shared/corpus` beside the checkout; missing, the suite fails). Runs in `pnpm test:corpus` only.
 */
const CORPUS = corpusRoot();
const check = pinnedCheck({ [CORPUS]: '<corpus>' });

describe('birdie skills check: output pinned over the shared corpus', () => {
  it('the Agent Skills and original birdie corpus folders, checked as folders', async () => {
    const out = await check(['skills', 'check', join(CORPUS, 'agentskills'), join(CORPUS, 'birdie')]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-corpus.txt'));
  });

  it("the reference validator's 55 malformed and edge-case skills, one folder each", async () => {
    const out = await check(['skills', 'check', ...folders(join(CORPUS, 'skills-ref'))]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-skills-ref.txt'));
  });

  it('every layer loaded together: bundled, then both corpus folders with --skills-dir (check and list)', async () => {
    const dirs = ['--skills-dir', join(CORPUS, 'agentskills'), '--skills-dir', join(CORPUS, 'birdie')];
    const out = await check(['skills', 'check', ...dirs]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-layers.txt'));
    const list = await check(['skills', 'list', '--json', ...dirs]);
    await expect(list).toMatchFileSnapshot(snapshot('skills-list-layers.txt'));
  });
});
