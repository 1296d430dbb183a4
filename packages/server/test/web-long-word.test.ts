import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PageGlobals, useBrowserServer } from './browser.js';

// One long unbroken word (a URL, a hash, base64) in an answer (report 7), in headless Chromium.

type Globals = PageGlobals & {
  document: { querySelector(s: string): { scrollWidth: number; clientWidth: number } | null };
};

const word = 'Averyveryverylongwordwithoutanyspaces'.repeat(200);

describe('a long word in the chat', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('wraps inside its message: the conversation does not scroll sideways', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    const history = web.runtime.history;
    web.runtime.history = async () => ({
      messages: [
        { role: 'human', content: `check ${word}` },
        { role: 'ai', content: `Here:\n\n${word}\n\n*${word}*` },
      ],
      grants: { enabled: [], disabled: [] },
    });
    try {
      const page = await web.page();
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
      await page.locator('.msg.assistant').waitFor();
      const widths = await page.evaluate(() => {
        const log = (globalThis as unknown as Globals).document.querySelector('.log')!;
        return { scroll: log.scrollWidth, client: log.clientWidth };
      });
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      await page.context().close();
    } finally {
      web.runtime.history = history;
    }
  });
});
