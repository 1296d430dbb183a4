import { join } from 'node:path';
import type { Page } from '@birdie/test-utils';
import { AIMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { type PageGlobals, useBrowserServer } from './browser.js';

// A chat open in the web app while a turn of the same session runs from the CLI (another client holds the session's
// lease and its run is logged running; it writes the history as it goes, without an API turn to follow), in headless
// Chromium against a real listening server. The app's watch notices that turn every few seconds: it must say the
// chat is busy and leave alone what the user is doing (the draft, its selection, the scroll position, the chat's
// nodes), and show the turn's answer once the lease is released.

type Box = { value: string; selectionStart: number; selectionEnd: number };
type Globals = PageGlobals & {
  document: PageGlobals['document'] & {
    querySelector(selector: string): ({ scrollTop: number; scrollHeight: number } & object) | null;
    querySelectorAll(selector: string): ArrayLike<object & { isConnected: boolean }>;
  };
  kept?: { nodes: Array<{ isConnected: boolean }>; box: unknown };
};

const grants = { enabled: [], disabled: [] };
type Messages = Array<{ role: string; content: string } & Record<string, unknown>>;

/** A history long enough that the log scrolls. */
const earlier: Messages = Array.from({ length: 12 }, (_, i) => [
  { role: 'human', id: `human-${i}`, content: `question ${i}` },
  { role: 'ai', id: `ai-${i}`, content: `answer ${i}\n\n${'a long paragraph of the answer. '.repeat(12)}` },
]).flat();

describe('a chat whose session runs a turn in another client (the CLI)', { timeout: 90_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });
  afterEach(() => {
    Reflect.deleteProperty(web.runtime, 'history');
  });

  const showing = (messages: Messages) => {
    web.runtime.history = async () => ({ messages, grants });
  };

  /** Counts the page's answers to the run-log requests its watch makes (one or more per poll). */
  function runLogAnswers(page: Page) {
    let count = 0;
    const waiters: Array<{ n: number; resolve(): void }> = [];
    page.on('response', (response) => {
      if (!response.url().includes('/v1/runs?')) return;
      count++;
      for (const w of waiters.splice(0))
        if (count >= w.n) w.resolve();
        else waiters.push(w);
    });
    return {
      /** Resolves once `more` answers came after this call. */
      next: (more: number) =>
        new Promise<void>((resolve) => {
          waiters.push({ n: count + more, resolve });
        }),
    };
  }

  it('says the chat is busy and polls quietly: the draft, its selection, the scroll and the nodes stay; the answer comes after', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    showing(earlier);
    const page = await web.page();
    const answers = runLogAnswers(page);
    await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
    await page.locator('.msg.assistant', { hasText: 'answer 11' }).waitFor();
    await page.locator('.log[aria-busy="false"]').waitFor();
    // A turn of this chat first, answered here.
    web.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'ANSWERED HERE' });
      handlers.onEvent({
        type: 'message',
        message: new AIMessage({ id: 'ai-web', content: 'ANSWERED HERE' }),
      });
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 1, outputTokens: 1 };
    };
    const here: Messages = [
      { role: 'human', id: 'human-web', content: 'asked in the web app' },
      { role: 'ai', id: 'ai-web', content: 'ANSWERED HERE' },
    ];
    showing([...earlier, ...here]);
    await page.fill('#prompt', 'asked in the web app');
    await page.keyboard.press('Enter');
    await page.locator('.turn-status', { hasText: 'Last turn: ok' }).waitFor();

    // The CLI's turn: it holds the session, its run is logged running, and its prompt is saved.
    const lease = await web.store.leases.acquire(session.id, { waitMs: 0 });
    try {
      const run = await web.store.runs.start({ sessionId: session.id, userId: 'alice', model: 'scripted' });
      showing([...earlier, ...here, { role: 'human', id: 'human-cli', content: 'asked from the CLI' }]);

      // The user reads the middle of the chat and types a draft, part of it selected.
      await page.fill('#prompt', 'my draft, half written');
      const scrolled = await page.evaluate(() => {
        const g = globalThis as unknown as Globals;
        const log = g.document.querySelector('.log')!;
        log.scrollTop = Math.round(log.scrollHeight / 3);
        const box = g.document.querySelector('#prompt') as unknown as Box;
        box.selectionStart = 3;
        box.selectionEnd = 8;
        g.kept = { nodes: Array.from(g.document.querySelectorAll('.log *')), box };
        return log.scrollTop;
      });
      expect(scrolled).toBeGreaterThan(0);

      // Two polls of the watch (at least; each asks the run log) while the CLI's turn runs.
      await answers.next(4);
      await page.locator('.log[aria-busy="false"]').waitFor();
      const seen = await page.evaluate(() => {
        const g = globalThis as unknown as Globals;
        const box = g.document.querySelector('#prompt') as unknown as Box;
        return {
          sameBox: box === g.kept!.box,
          nodesKept: g.kept!.nodes.every((n) => n.isConnected),
          draft: box.value,
          selection: [box.selectionStart, box.selectionEnd],
          scrollTop: g.document.querySelector('.log')!.scrollTop,
        };
      });
      expect(seen).toEqual({
        sameBox: true,
        nodesKept: true,
        draft: 'my draft, half written',
        selection: [3, 8],
        scrollTop: scrolled,
      });
      await page.locator('.turn-status', { hasText: 'busy' }).waitFor({ timeout: 5_000 });
      // What the CLI saved meanwhile is shown (its prompt), the turn is not this chat's to cancel.
      await page.locator('.msg.user', { hasText: 'asked from the CLI' }).waitFor();
      expect(await page.locator('.composer button', { hasText: 'Cancel' }).count()).toBe(0);

      // The CLI's turn ends: its answer is saved, its run logged, the lease released.
      showing([
        ...earlier,
        ...here,
        { role: 'human', id: 'human-cli', content: 'asked from the CLI' },
        { role: 'ai', id: 'ai-cli', content: 'ANSWERED IN THE CLI' },
      ]);
      await web.store.runs.finish(run, { status: 'ok', answer: 'ANSWERED IN THE CLI' });
    } finally {
      await lease.release();
    }
    await page.locator('.msg.assistant', { hasText: 'ANSWERED IN THE CLI' }).waitFor();
    await page.locator('.turn-status', { hasText: 'Last turn: ok' }).waitFor();
    const after = await page.evaluate(() => {
      const g = globalThis as unknown as Globals;
      const box = g.document.querySelector('#prompt') as unknown as Box;
      return { draft: box.value, nodesKept: g.kept!.nodes.every((n) => n.isConnected) };
    });
    expect(after).toEqual({ draft: 'my draft, half written', nodesKept: true });
    expect(await page.locator('.msg.assistant', { hasText: 'ANSWERED IN THE CLI' }).count()).toBe(1);
    await page.context().close();
  });
  it('does not replay an older API turn that saved nothing after the prompt of the turn the CLI runs', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'half an ans' });
      handlers.onEvent({ type: 'error', error: { code: 'model', message: 'THE OLD MODEL FAILED' } });
      handlers.onEvent({ type: 'done', status: 'error' });
      return { status: 'error', inputTokens: 0, outputTokens: 0 };
    };
    const response = await fetch(`${web.url}/v1/sessions/${encodeURIComponent(session.id)}/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${web.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'first question' }),
    });
    await response.text();
    // It saved its prompt only; opened, the chat shows how it went.
    showing([{ role: 'human', id: 'human-1', content: 'first question' }]);
    const page = await web.page();
    const answers = runLogAnswers(page);
    await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
    await page.locator('.notice.error', { hasText: 'THE OLD MODEL FAILED' }).waitFor();
    await page.locator('.log[aria-busy="false"]').waitFor();

    const lease = await web.store.leases.acquire(session.id, { waitMs: 0 });
    try {
      await web.store.runs.start({ sessionId: session.id, userId: 'alice', model: 'scripted' });
      showing([
        { role: 'human', id: 'human-1', content: 'first question' },
        { role: 'human', id: 'human-2', content: 'later from the CLI' },
      ]);
      await page.locator('.turn-status', { hasText: 'busy' }).waitFor();
      await answers.next(2);
      await page.locator('.log[aria-busy="false"]').waitFor();
      const texts = await page.locator('.log > *').allInnerTexts();
      expect(texts.filter((t) => t.includes('THE OLD MODEL FAILED'))).toHaveLength(1);
      expect(texts.filter((t) => t.includes('half an ans'))).toHaveLength(1);
      expect(texts.at(-1)).toContain('later from the CLI');
    } finally {
      await lease.release();
    }
    await page.context().close();
  });
});
