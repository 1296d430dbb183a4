import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowserServer } from './browser.js';

// A title is at most 200 characters, counted as the server counts them: code points, so an emoji is one. Reported: the
// web app's title inputs counted UTF-16 units (`maxLength`), and stopped a title of 150 emoji at 100 of them.

const emoji = '🐦'.repeat(150);

describe('session titles in the web app', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('a new chat takes a title of 150 emoji whole', async () => {
    web.runtime.history = async () => ({ messages: [], grants: { enabled: [], disabled: [] } });
    const page = await web.page();
    await page.goto(`${web.url}/#/new`);
    await page.locator('#new-title').waitFor();
    await page.focus('#new-title');
    await page.keyboard.insertText(emoji);
    expect(await page.inputValue('#new-title')).toBe(emoji);
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/s\//);
    const [session] = await web.store.sessions.list('alice');
    expect(session?.title).toBe(emoji);
    await page.context().close();
  });

  it('Rename takes 150 emoji whole, and a 201-character title is refused with the reason, the old title kept', async () => {
    const owls = '🦉'.repeat(150);
    const session = await web.store.sessions.create('alice', { perUser: true, title: 'old' });
    const page = await web.page();
    await page.goto(`${web.url}/#/`);
    await page.click('button[aria-label="Rename old"]');
    const input = page.locator(`input[id="title-${session.id}"]`);
    await input.waitFor();
    await input.fill('');
    await page.keyboard.insertText(owls);
    expect(await input.inputValue()).toBe(owls);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await web.store.sessions.get(session.id, 'alice'))?.title).toBe(owls);

    // The list shows the new title before it is renamed again.
    await page.locator('a.title', { hasText: owls }).waitFor();
    await page.click(`button[aria-label="Rename ${owls}"]`);
    await input.waitFor();
    // Refused before it is sent: no rename request leaves the page.
    const renames: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH') renames.push(request.url());
    });
    await input.fill('');
    await page.keyboard.insertText('x'.repeat(201));
    await page.keyboard.press('Enter');
    await expect(page.locator('[role="alert"]').innerText()).resolves.toContain('1-200 characters');
    await input.fill('   ');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('[role="alert"]').innerText()).toContain('not blank');
    expect(renames).toEqual([]);
    expect((await web.store.sessions.get(session.id, 'alice'))?.title).toBe(owls);
    await page.context().close();
  });
});
