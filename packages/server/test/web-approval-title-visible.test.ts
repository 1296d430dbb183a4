import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowserServer } from './browser.js';

// Reported: a card with long arguments took the focus on its Approve button, which scrolled the cards' box so that
// "Run write_file?" and the description were out of view: the user was asked to approve what they could not see.

describe('an approval card taller than its box', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('shows its title when it appears, though the focus is on Approve', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    const content = Array.from({ length: 120 }, (_, i) => `line ${i + 1} of a long file`).join('\n');
    web.runtime.pending = [
      {
        id: 'call-1',
        digest: 'd',
        tool: 'write_file',
        args: { path: 'long.txt', content },
        description: 'Write long.txt',
        reason: 'approval-required',
      },
    ];
    try {
      const page = await web.page();
      await page.setViewportSize({ width: 900, height: 600 });
      await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
      await page.locator('.approval').waitFor();
      await expect
        .poll(() =>
          page.evaluate(
            () =>
              (globalThis as unknown as { document: { activeElement: { textContent: string } | null } })
                .document.activeElement?.textContent,
          ),
        )
        .toBe('Approve');
      const box = (await page.locator('.approvals').boundingBox())!;
      const title = (await page.locator('.approval h2').boundingBox())!;
      expect(title.y).toBeGreaterThanOrEqual(box.y - 1);
      expect(title.y + title.height).toBeLessThanOrEqual(box.y + box.height + 1);
      await page.context().close();
    } finally {
      web.runtime.pending = [];
    }
  });
});
