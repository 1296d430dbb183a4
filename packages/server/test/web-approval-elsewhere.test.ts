import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordAlerts, useBrowserServer } from './browser.js';

// A second tab on a chat whose approval was answered in the first one (report 1): in headless Chromium against a real
// listening server, the decision made "elsewhere" by changing what the server reports for the session.

const request = {
  id: 'call-1',
  digest: 'd',
  tool: 'write_file',
  args: { path: 'f.txt', content: 'hello' },
  description: 'write_file({"path":"f.txt","content":"hello"})',
  reason: 'approval-required' as const,
};

describe('an approval answered in another tab', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('leaves this tab: the card goes, the call shows as run with its output, and Approve here is no raw 409', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.pending = [request];
    const history = web.runtime.history;
    web.runtime.history = async () => ({
      messages: [
        { role: 'human', content: 'write please' },
        { role: 'ai', content: '', tool_calls: [{ id: 'call-1', name: 'write_file', args: request.args }] },
      ],
      grants: { enabled: [], disabled: [] },
    });
    try {
      const page = await web.page();
      await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
      await page.locator('.approval').waitFor();
      // Every text the chat's alert shows, as it is drawn (the refusal must not flash before the tab reopens).
      const alertsDrawn = await recordAlerts(page);
      // The other tab approved it: the call ran, the turn ended.
      web.runtime.pending = [];
      web.runtime.history = async () => ({
        messages: [
          { role: 'human', content: 'write please' },
          { role: 'ai', content: '', tool_calls: [{ id: 'call-1', name: 'write_file', args: request.args }] },
          { role: 'tool', tool_call_id: 'call-1', content: 'wrote f.txt' },
          { role: 'ai', content: 'wrote it' },
        ],
        grants: { enabled: [], disabled: [] },
      });
      // This tab's user clicks Approve before or after the tab notices; either way the outcome is the same.
      await page
        .locator('.approval button', { hasText: /^Approve$/ })
        .click({ timeout: 2000 })
        .catch(() => {});
      await page.locator('.approval').waitFor({ state: 'detached', timeout: 15_000 });
      await page.locator('.msg.assistant', { hasText: 'wrote it' }).waitFor();
      const main = await page.locator('main').innerText();
      expect(main).toContain('write_file ok');
      expect(main).not.toContain('not run');
      expect(main).not.toContain('is not waiting for an approval');
      const drawn = await alertsDrawn();
      expect(drawn.filter((text) => text.includes('not waiting'))).toEqual([]);
      await page.context().close();
    } finally {
      web.runtime.history = history;
      web.runtime.pending = [];
    }
  });
});
