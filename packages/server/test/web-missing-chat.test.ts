import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowserServer } from './browser.js';

// Reported: a chat that does not exist (a stale link, another user's) said "No such chat." but kept the message box,
// Send, the Skills link and "Ready"; sending then failed with "no session …".

describe('a chat that does not exist', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('says so, offers a new chat, and no message box', async () => {
    const bob = await web.store.sessions.create('bob', { perUser: true });
    const page = await web.page();
    for (const id of ['alice~2030-01-01_9', bob.id]) {
      await page.goto(`${web.url}/#/s/${encodeURIComponent(id)}`);
      await page.locator('main.chat [role=alert]', { hasText: 'No such chat.' }).waitFor();
      expect(await page.locator('#prompt').count(), id).toBe(0);
      expect(await page.locator('main.chat .turn-status').count()).toBe(0);
      expect(await page.locator('main.chat a', { hasText: 'Skills' }).count()).toBe(0);
      expect(await page.locator('main.chat a[href="#/new"]').count()).toBe(1);
    }
    await page.context().close();
  });
});
