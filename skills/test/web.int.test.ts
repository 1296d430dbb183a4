// Against the real web (network needed; not part of `pnpm test`: run `pnpm test:int`). Checks the https path through
// the pinned lookup end to end, and a redirect between public hosts.
import { describe, expect, it } from 'vitest';
import { toolEntrypoint } from './helpers.js';

describe('web_fetch against the real web', () => {
  it('reads https://example.com as Markdown', async () => {
    const fetchTool = await toolEntrypoint('web', 'web_fetch');
    const { output } = await fetchTool.run({ url: 'https://example.com/' }, { timeoutMs: 30_000 });
    expect(output).toMatch(/^# Example Domain\nSource: https:\/\/example\.com\/\n/);
    expect(output).toMatch(/\[[^\]]+\]\(https:\/\/(www\.)?iana\.org\//);
  });

  it('follows a public redirect (http to https)', async () => {
    const fetchTool = await toolEntrypoint('web', 'web_fetch');
    const { output } = await fetchTool.run({ url: 'http://nodejs.org/' }, { timeoutMs: 30_000 });
    expect(output).toMatch(/Source: https:\/\/nodejs\.org\/\S* \(redirected from http:\/\/nodejs\.org\/\)/);
  });
});
