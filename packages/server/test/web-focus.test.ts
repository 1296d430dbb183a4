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
    web.runtime.script = async ({ session, handlers }) => {
      handlers.onEvent({ type: 'session', id: session.id, user: 'alice', provider: 'scripted/test' });
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

    web.runtime.script = async ({ session, handlers }) => {
      web.runtime.pending = [];
      approved.open();
      handlers.onEvent({ type: 'session', id: session.id, user: 'alice', provider: 'scripted/test' });
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
});
