import { join } from 'node:path';
import type { Page } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { type PageGlobals, useBrowserServer } from './browser.js';
import { gate } from './helpers.js';

// Where the keyboard focus goes when the chat changes under it (report 4), in headless Chromium against a real
// listening server: never lost to <body>.

type Globals = PageGlobals & {
  document: { activeElement: { tagName: string; id: string; textContent: string | null } | null };
};

const request = {
  id: 'call-1',
  digest: 'd',
  tool: 'write_file',
  args: { path: 'f.txt', content: 'hello' },
  description: 'write_file({"path":"f.txt","content":"hello"})',
  reason: 'approval-required' as const,
};

/** The focused element, as `TAG#id text`. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const e = (globalThis as unknown as Globals).document.activeElement;
    return e ? `${e.tagName}${e.id ? `#${e.id}` : ''} ${e.textContent ?? ''}`.trim() : '';
  });

describe('keyboard focus in the chat', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('lands in the message box after Start, on the approval’s first action when it appears, and back in the box after answering', async () => {
    const approved = gate();
    web.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'approval-request', requests: [request] });
      handlers.onEvent({ type: 'done', status: 'interrupted' });
      return { status: 'interrupted', inputTokens: 0, outputTokens: 0, pending: [request] };
    };
    web.runtime.history = async () => ({ messages: [], grants: { enabled: [], disabled: [] } });
    const page = await web.page();
    await page.goto(`${web.url}/#/new`);
    await page.locator('#new-title').waitFor();
    await page.focus('#new-title');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/s\//);
    await expect.poll(() => focused(page)).toBe('TEXTAREA#prompt');

    await page.keyboard.type('write please');
    web.runtime.pending = [request];
    await page.keyboard.press('Enter');
    await page.locator('.approval').waitFor();
    await expect.poll(() => focused(page)).toBe('BUTTON Approve');

    web.runtime.script = async ({ handlers }) => {
      web.runtime.pending = [];
      approved.open();
      handlers.onEvent({ type: 'token', text: 'wrote it' });
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 1, outputTokens: 1 };
    };
    await page.keyboard.press('Enter');
    await approved.promise;
    await page.locator('.approval').waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('TEXTAREA#prompt');
    await page.context().close();
  });

  it('stays in a chat row through Delete and Keep, and through Rename and its Cancel', async () => {
    await web.store.sessions.create('alice', { perUser: true, title: 'keep me' });
    const page = await web.page();
    await page.goto(`${web.url}/#/`);
    await page.focus('button[aria-label="Delete keep me"]');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('BUTTON Keep');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('BUTTON Delete');
    await page.focus('button[aria-label="Rename keep me"]');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatch(/^INPUT#title-/);
    await page.focus('.row button:text-is("Cancel")');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('A keep me');
    await page.context().close();
  });

  // Reported: after deleting a chat the focus fell to the page, and Escape did not leave Rename or Delete.
  it('Escape leaves Rename and Delete; a chat deleted hands the focus to its neighbour', async () => {
    await web.store.sessions.create('alice', { perUser: true, title: 'stays' });
    await web.store.sessions.create('alice', { perUser: true, title: 'goes' });
    const page = await web.page();
    await page.goto(`${web.url}/#/`);
    await page.focus('button[aria-label="Rename stays"]');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatch(/^INPUT#title-/);
    await page.keyboard.press('Escape');
    await expect.poll(() => focused(page)).toBe('A stays');
    await page.focus('button[aria-label="Delete stays"]');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('BUTTON Keep');
    await page.keyboard.press('Escape');
    // As Keep does: back on the row's Delete.
    await expect.poll(() => focused(page)).toBe('BUTTON Delete');
    expect(await page.locator('button.danger').count()).toBe(0);
    await page.focus('button[aria-label="Delete goes"]');
    await page.keyboard.press('Enter');
    await page.focus('button.danger');
    await page.keyboard.press('Enter');
    await page.locator('a.title', { hasText: 'goes' }).waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('A stays');
    await page.context().close();
  });

  it('on an approval already waiting when the chat opens, and through its Edit and Back', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.pending = [request];
    try {
      const page = await web.page();
      await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
      await page.locator('.approval').waitFor();
      await expect.poll(() => focused(page)).toBe('BUTTON Approve');
      await page.focus('.approval button:text-is("Edit")');
      await page.keyboard.press('Enter');
      await expect.poll(() => focused(page)).toBe(`TEXTAREA#approval-${request.id}-args`);
      await page.focus('.approval button:text-is("Back")');
      await page.keyboard.press('Enter');
      await expect.poll(() => focused(page)).toBe('BUTTON Approve');
      await page.context().close();
    } finally {
      web.runtime.pending = [];
    }
  });

  // Reported by the web app's review (stop 60): after signing in, the focus was on the page itself, so a keyboard or
  // screen reader user started again from the top. It goes to the screen signed into: its main region, or the chat's
  // message box.
  describe('after signing in', () => {
    /** The focused element as `TAG#id`: the main region's text is the whole screen. */
    const focusedTag = (page: Page) =>
      page.evaluate(() => {
        const e = (globalThis as unknown as Globals).document.activeElement;
        return e ? `${e.tagName}${e.id ? `#${e.id}` : ''}` : '';
      });
    const signIn = async (page: Page, address: string) => {
      await page.goto(address);
      await page.locator('#token').fill(web.token);
      await page.keyboard.press('Enter');
    };

    it('is on the main region of the chat list', async () => {
      const page = await web.page({ signedInAs: false });
      await signIn(page, `${web.url}/#/`);
      await page.locator('main h1', { hasText: 'Chats' }).waitFor();
      await expect.poll(() => focusedTag(page)).toBe('MAIN#main');
      await page.context().close();
    });

    it('is on the main region of the runs', async () => {
      const page = await web.page({ signedInAs: false });
      await signIn(page, `${web.url}/#/runs`);
      await page.locator('main.runs').waitFor();
      await expect.poll(() => focusedTag(page)).toBe('MAIN#main');
      await page.context().close();
    });

    it('is in the message box of the chat signed into', async () => {
      const session = await web.store.sessions.create('alice', { perUser: true });
      const page = await web.page({ signedInAs: false });
      await signIn(page, `${web.url}/#/s/${encodeURIComponent(session.id)}`);
      await page.locator('#prompt').waitFor();
      await expect.poll(() => focusedTag(page)).toBe('TEXTAREA#prompt');
      await page.context().close();
    });

    it('stays where it was when the app opens already signed in (a reload moves nothing)', async () => {
      const page = await web.page();
      await page.goto(`${web.url}/#/`);
      await page.locator('main h1', { hasText: 'Chats' }).waitFor();
      // Give a focus move the chance to happen before the answer is read.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
      expect(await focusedTag(page)).toBe('BODY');
      await page.context().close();
    });
  });
});
