import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowserServer } from './browser.js';

// Reported: tab B on a chat never saw a turn tab A ran when it was over between two of B's looks at the run log (a
// quick answer), nor one that stopped for an approval: B stayed "Ready" with an empty log and no approval card, and a
// message sent from B then dropped A's pending call ("the user moved on"). B now notices a new run whatever its state.

const request = {
  id: 'call-9',
  digest: 'd',
  tool: 'write_file',
  args: { path: 'f.txt', content: 'hello' },
  description: 'write_file({"path":"f.txt","content":"hello"})',
  reason: 'approval-required' as const,
};

describe('a turn of another tab that ended before this tab looked', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('is shown, and a call it stopped on for approval shows its card here too', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    const history = web.runtime.history;
    try {
      const page = await web.page();
      await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
      await page.locator('.turn-status', { hasText: 'Ready' }).waitFor();
      // Tab A's turn, over already: it asked about a call and stopped (the run log says interrupted).
      const run = await web.store.runs.start({ sessionId: session.id, userId: 'alice', model: 'fake' });
      await web.store.runs.finish(run, { status: 'interrupted' });
      web.runtime.pending = [request];
      web.runtime.history = async () => ({
        messages: [
          { role: 'human', content: 'write please' },
          { role: 'ai', content: '', tool_calls: [{ id: 'call-9', name: 'write_file', args: request.args }] },
        ],
        grants: { enabled: [], disabled: [] },
      });
      await page.locator('.approval').waitFor({ timeout: 20_000 });
      await page.locator('.msg.user', { hasText: 'write please' }).waitFor();
      expect(await page.locator('.approval').innerText()).toContain('write_file');
      await page.context().close();
    } finally {
      web.runtime.history = history;
      web.runtime.pending = [];
    }
  });
});
