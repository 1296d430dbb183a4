import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { useBrowserServer } from './browser.js';
import { type CutProxy, cutProxy } from './cut-proxy.js';

// Reported: with the server stopped, the chat list said "The server could not be reached" and kept saying it after the
// server came back, until something else made the list load again.

describe('a list that could not load while the server was down', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });
  let proxy: CutProxy;
  beforeAll(async () => {
    proxy = await cutProxy(web.url);
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('loads again by itself once the server answers, and the error goes', async () => {
    await web.store.sessions.create('alice', { perUser: true, title: 'still here' });
    const page = await web.page();
    await page.goto(`${proxy.url}/#/`);
    await page.locator('a.title', { hasText: 'still here' }).waitFor();
    proxy.down();
    proxy.cut();
    try {
      // A search asks the server again: it cannot be reached.
      await page.fill('#session-search', 'still');
      await page.locator('aside.sessions [role=alert]', { hasText: 'could not be reached' }).waitFor();
    } finally {
      proxy.up();
    }
    await page.locator('aside.sessions [role=alert]').waitFor({ state: 'detached', timeout: 20_000 });
    await page.locator('a.title', { hasText: 'still here' }).waitFor();
    await page.context().close();
  });
});
