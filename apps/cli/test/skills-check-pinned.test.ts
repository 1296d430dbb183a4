import { describe, expect, it } from 'vitest';
import { BUNDLED, FIXTURES, pinnedCheck, snapshot } from './helpers/pinned-check.js';

/**
 * `birdie skills check` over the bundled skills and the parser's fixtures, pinned as text: how skills are parsed may
 * change (when and how much is read at load), what is reported may not. The shared corpus's own pinned output is in
 * `skills-check.corpus.test.ts` (`pnpm test:corpus`).
 */
const check = pinnedCheck();

describe('birdie skills check: output pinned over the bundled skills and the fixtures', () => {
  it("the parser's fixtures (tool blocks, setext limits, MCP servers, YAML limits)", async () => {
    const out = await check(['skills', 'check', FIXTURES]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-fixtures.txt'));
  });

  it('the bundled skills, checked as a folder', async () => {
    const out = await check(['skills', 'check', BUNDLED]);
    await expect(out).toMatchFileSnapshot(snapshot('skills-check-bundled.txt'));
  });
});
