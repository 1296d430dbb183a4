import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PageGlobals, useBrowserServer } from './browser.js';

// A Markdown table wider than the chat (reported by the web app's review, stop 60: its headers broke mid-word), in
// headless Chromium at a phone's width: every word of a cell stays whole, the table scrolls sideways inside its
// message, and the conversation itself does not.

interface Rect {
  width: number;
}
type Globals = PageGlobals & {
  document: {
    querySelector(s: string): { scrollWidth: number; clientWidth: number } | null;
    querySelectorAll(s: string): Iterable<{ firstChild: { textContent: string | null } | null }>;
    createRange(): {
      setStart(node: unknown, offset: number): void;
      setEnd(node: unknown, offset: number): void;
      getClientRects(): ArrayLike<Rect>;
    };
  };
};

const header = '| Tool name | Skill folder | Calls today | Median duration | Error rate | Last status |';
const rows = [
  '|---|---|---|---|---|---|',
  '| read_file | filesystem | 1,204 | 3 milliseconds | none | finished |',
  '| web_search | research | 87 | 1.2 seconds | occasional | throttled |',
];

describe('a table wider than the chat', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('keeps its words whole at 375 px and scrolls inside its message', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    const history = web.runtime.history;
    web.runtime.history = async () => ({
      messages: [
        { role: 'human', content: 'how are the tools doing?' },
        { role: 'ai', content: `Today:\n\n${[header, ...rows].join('\n')}\n` },
      ],
      grants: { enabled: [], disabled: [] },
    });
    try {
      const page = await web.page();
      await page.setViewportSize({ width: 375, height: 700 });
      await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
      await page.locator('.msg.assistant table').waitFor();
      const seen = await page.evaluate(() => {
        const { document } = globalThis as unknown as Globals;
        // A word split over two lines has two boxes.
        const broken: string[] = [];
        for (const cell of document.querySelectorAll('.msg.assistant th, .msg.assistant td')) {
          const text = cell.firstChild;
          const value = text?.textContent ?? '';
          for (const match of value.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(text, match.index);
            range.setEnd(text, match.index + match[0].length);
            if (range.getClientRects().length > 1) broken.push(match[0]);
          }
        }
        const log = document.querySelector('.log')!;
        const table = document.querySelector('.msg.assistant table')!;
        return {
          broken,
          log: { scroll: log.scrollWidth, client: log.clientWidth },
          table: { scroll: table.scrollWidth, client: table.clientWidth },
        };
      });
      expect(seen.broken).toEqual([]);
      // The table is wider than the screen: it scrolls itself, the conversation does not.
      expect(seen.table.scroll).toBeGreaterThan(seen.table.client);
      expect(seen.log.scroll).toBeLessThanOrEqual(seen.log.client);
      await page.context().close();
    } finally {
      web.runtime.history = history;
    }
  });
});
