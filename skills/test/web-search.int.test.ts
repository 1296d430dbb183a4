// Against the real DuckDuckGo HTML endpoint (network needed; not part of `pnpm test`: run `pnpm test:int`).
import { describe, expect, it } from 'vitest';
import { toolEntrypoint } from './helpers.js';

describe('web-search against DuckDuckGo', () => {
  it('finds the Node.js website', async () => {
    const search = await toolEntrypoint('web-search', 'web_search');
    const { output } = await search.run(
      { query: 'Node.js JavaScript runtime', max_results: 3 },
      { timeoutMs: 30_000 },
    );
    expect(output).toMatch(/^Results for "Node\.js JavaScript runtime" \([1-3] of \d+\):/);
    expect(output).toMatch(/^ {3}https?:\/\/\S+$/m);
    expect(output).toMatch(/nodejs\.org/);
  });
});
