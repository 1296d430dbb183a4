import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAlerts, useBrowserServer } from './browser.js';
import { type CutProxy, cutProxy } from './cut-proxy.js';

// A message sent while the server cannot be reached (the connection is refused: the worker is down, the network
// is gone), in headless Chromium behind a TCP proxy that refuses new connections: the request never got to the
// server, so nothing of the message was sent.

describe('a message whose request never reaches the server', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });
  let proxy: CutProxy;
  beforeAll(async () => {
    proxy = await cutProxy(web.url);
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('goes back into the message box with an error saying it may not have been sent, and no turn is said to have run', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    let turns = 0;
    web.runtime.script = async ({ handlers }) => {
      turns += 1;
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    const page = await web.page();
    await page.goto(`${proxy.url}/#/s/${encodeURIComponent(session.id)}`);
    await page.locator('#prompt').waitFor();
    await page.locator('.turn-status', { hasText: 'Ready' }).waitFor();
    // Every text the chat's alert shows, as it is drawn: a shorter error drawn first and replaced a moment later is
    // what a user (and a test reading the alert on a busy machine) may see.
    const alertsDrawn = await recordAlerts(page);
    proxy.down();
    proxy.cut();
    try {
      await page.fill('#prompt', 'my important question');
      await page.keyboard.press('Enter');
      const alert = page.locator('main.chat [role=alert]');
      await alert.waitFor();
      expect(await alert.innerText()).toMatch(/may not have been sent/);
      const drawn = await alertsDrawn();
      expect(drawn).toHaveLength(1);
      expect(drawn[0]).toMatch(/may not have been sent/);
      expect(await page.inputValue('#prompt')).toBe('my important question');
      expect(await page.locator('.log').innerText()).not.toContain('my important question');
      expect(await page.locator('.turn-status').innerText()).toBe('Ready');
    } finally {
      proxy.up();
    }
    expect(turns).toBe(0);
    // Back up: sending it again works.
    await page.locator('button[type=submit]').click();
    await page.locator('.msg.user', { hasText: 'my important question' }).waitFor();
    await page.locator('.turn-status', { hasText: 'Last turn: ok' }).waitFor();
    expect(await page.locator('main.chat [role=alert]').count()).toBe(0);
    await page.context().close();
  });
});
