import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowserServer } from './browser.js';

// A message refused with 409 session-busy (another tab's turn holds the chat; report 6), in headless Chromium.

describe('a message the server refuses', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('goes back into the message box, and the status does not claim a turn of this tab runs', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    const page = await web.page();
    await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
    await page.locator('#prompt').waitFor();
    const lease = await web.store.leases.acquire(session.id, { waitMs: 0 });
    try {
      await page.fill('#prompt', 'my important question');
      await page.keyboard.press('Enter');
      await page.locator('[role=alert]', { hasText: 'busy' }).waitFor();
      expect(await page.inputValue('#prompt')).toBe('my important question');
      expect(await page.locator('.turn-status').innerText()).not.toContain('running');
      expect(await page.locator('.log').innerText()).not.toContain('my important question');
    } finally {
      await lease.release();
    }
    await page.context().close();
  });
});
