import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PageGlobals, useBrowserServer } from './browser.js';

// A token revoked while its user has the app open (report 5), in headless Chromium against a real listening server.

describe('a token revoked while the app is open', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('signs the app out at the next request: the token is dropped and the sign-in form says why', async () => {
    const { token, record } = await web.store.tokens.create('dave');
    const session = await web.store.sessions.create('dave', { perUser: true });
    const page = await web.page({ signedInAs: token });
    await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
    await page.locator('#prompt').waitFor();
    await web.store.tokens.revoke(record.id);
    // The next request is the message sent, or the chat's own look for a turn started elsewhere: either signs out.
    await page
      .fill('#prompt', 'hello', { timeout: 2000 })
      .then(() => page.keyboard.press('Enter'))
      .catch(() => {});
    await page.locator('#token').waitFor();
    const body = await page.locator('body').innerText();
    expect(body).toContain('no longer valid');
    expect(body).not.toContain('Authorization: Bearer');
    expect(body).not.toContain('running');
    const kept = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).sessionStorage.getItem('birdie.token') !== null,
    );
    expect(kept).toBe(false);
    await page.context().close();
  });

  // Reported: the message typed when the token turned out revoked was lost, and so was the chat (the address was
  // cleared): signing in again with a new token opened the chat list, the message gone.
  it('keeps the message typed and the chat: signed in again, both are back', async () => {
    const { token, record } = await web.store.tokens.create('erin');
    const session = await web.store.sessions.create('erin', { perUser: true });
    const page = await web.page({ signedInAs: token });
    await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
    await page.locator('.turn-status', { hasText: 'Ready' }).waitFor();
    await page.fill('#prompt', 'a long message I do not want to type again');
    await web.store.tokens.revoke(record.id);
    // Sent, or the chat's own look for a turn elsewhere signs out first: the message must outlive either.
    await page
      .locator('#prompt')
      .press('Enter', { timeout: 2000 })
      .catch(() => {});
    await page.locator('#token').waitFor();
    const again = await web.store.tokens.create('erin');
    await page.fill('#token', again.token);
    await page.keyboard.press('Enter');
    await page.locator('#prompt').waitFor();
    expect(
      await page.evaluate(() => (globalThis as unknown as { location: { hash: string } }).location.hash),
    ).toBe(`#/s/${encodeURIComponent(session.id)}`);
    expect(await page.inputValue('#prompt')).toBe('a long message I do not want to type again');
    await page.context().close();
  });
});
