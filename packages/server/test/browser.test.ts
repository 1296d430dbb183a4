import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PageGlobals, useBrowserServer } from './browser.js';

// Functions given to the page run there: they name its globals through `globalThis` (no helper of this file).
type Globals = PageGlobals & { violations: string[] };

// The web app's Content-Security-Policy, in a real headless Chromium against a real listening server: a fixture page
// with an inline script, an inline event handler and a `javascript:` link, and one same-origin script file.

describe('the web app in Chromium', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, 'fixtures', 'csp-page') });

  it('runs the page’s own script file and nothing inline: the CSP blocks the inline script, handler and link', async () => {
    const page = await web.page();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && message.text().includes('Content Security Policy'))
        refused.push(message.text());
    });
    const response = await page.goto(`${web.url}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.waitForFunction(
      () => (globalThis as unknown as Globals).document.getElementById('status')?.textContent === 'ready',
    );
    await page.click('#js-link');
    // The handler and the link are refused when they would run; wait for their reports, not for a time.
    await page.waitForFunction(() => (globalThis as unknown as Globals).violations.length >= 2);
    const ran = await page.evaluate(() => {
      const w = globalThis as unknown as Globals;
      return { external: w.externalRan, inline: w.inlineRan, handler: w.handlerRan, link: w.linkRan };
    });
    expect(ran).toEqual({ external: true, inline: undefined, handler: undefined, link: undefined });
    expect(refused.some((text) => text.includes('inline script'))).toBe(true);
    // The API answers the page's fetch with the token the app keeps in sessionStorage.
    const status = await page.evaluate(async () => {
      const token = (globalThis as unknown as Globals).sessionStorage.getItem('birdie.token');
      return (await fetch('/v1/sessions', { headers: { authorization: `Bearer ${token}` } })).status;
    });
    expect(status).toBe(200);
    await page.context().close();
  });
});
