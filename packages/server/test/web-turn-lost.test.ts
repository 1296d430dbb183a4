import { join } from 'node:path';
import type { Page } from '@birdie/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TurnHandlers } from '../src/runtime.js';
import { useBrowserServer } from './browser.js';
import { type CutProxy, cutProxy } from './cut-proxy.js';
import { gate, turnWritesStop } from './helpers.js';

// A worker killed in the middle of a turn (report 2), in headless Chromium against a real listening server behind a
// TCP proxy: the proxy drops the page's connections and refuses new ones for a while (the worker is gone, then back),
// and the turn stops where it was with nobody holding its session — what a `kill -9` leaves in the store. The server
// ends such a turn as lost (`turn-lost`) once a follower finds it silent for `lostTurnMs`.

const LOST = 'the worker running this turn stopped';

describe('a turn whose worker dies', { timeout: 60_000 }, () => {
  const web = useBrowserServer({
    webRoot: join(import.meta.dirname, '..', 'dist', 'web'),
    eventPollMs: 20,
    tokenFlushMs: 20,
    lostTurnMs: 300,
  });
  let proxy: CutProxy;
  const released: Array<() => void> = [];
  /** Brings back the writes of a worker a test killed (`turnWritesStop`), for the next test. */
  const revive: Array<() => void> = [];
  afterEach(() => {
    for (const write of revive.splice(0)) write();
  });
  beforeAll(async () => {
    proxy = await cutProxy(web.url);
  });
  afterAll(async () => {
    for (const release of released) release();
    await proxy.close();
  });

  /** The next turn streams a partial answer, then its worker "dies" when `crash` opens (the lease goes, no end). */
  function crashingTurn() {
    const answered = gate();
    const crash = gate();
    const never = gate();
    released.push(never.open);
    web.runtime.history = async () => ({
      messages: [{ role: 'human', content: 'slow please' }],
      grants: { enabled: [], disabled: [] },
    });
    web.runtime.runTurn = async (session, _input, handlers: TurnHandlers) => {
      const lease = await web.store.leases.acquire(session.id, { waitMs: 0 });
      handlers.onLeased(lease);
      handlers.onEvent({ type: 'token', text: 'SLOW one two ' });
      handlers.onEvent({ type: 'token', text: 'three' });
      // Another event records the tokens before it.
      handlers.onEvent({ type: 'usage', model: 'scripted', inputTokens: 1, outputTokens: 1 });
      answered.open();
      await crash.promise;
      revive.push(await turnWritesStop(web.store, session, 'usage'));
      await lease.release();
      await never.promise;
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    return { answered: answered.promise, crash: crash.open };
  }

  async function expectLost(page: Page) {
    await page.locator('.notice.error', { hasText: LOST }).waitFor({ timeout: 30_000 });
    const log = await page.locator('.log').innerText();
    expect(log.split('SLOW one two three').length - 1).toBe(1);
    expect(await page.locator('.turn-status').innerText()).toBe('Last turn: error');
  }

  it('the open chat reattaches once the worker is back and shows the turn lost, partial answer kept; so does a reload', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    const turn = crashingTurn();
    const page = await web.page();
    await page.goto(`${proxy.url}/#/s/${encodeURIComponent(session.id)}`);
    await page.locator('#prompt').waitFor();
    await page.fill('#prompt', 'slow please');
    await page.keyboard.press('Enter');
    await turn.answered;
    await page.locator('.msg.assistant', { hasText: 'SLOW one two three' }).waitFor();
    // kill -9: every stream is cut, and for a while nobody answers.
    proxy.down();
    proxy.cut();
    turn.crash();
    await expect.poll(() => proxy.refused, { timeout: 30_000 }).toBeGreaterThan(0);
    proxy.up();
    await expectLost(page);
    await page.reload();
    await page.locator('.msg.user', { hasText: 'slow please' }).waitFor();
    await expectLost(page);
    await page.context().close();
  });

  it('a chat opened after its worker died, with nobody following the turn, shows the partial answer and the turn lost', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    const turn = crashingTurn();
    const response = fetch(`${web.url}/v1/sessions/${encodeURIComponent(session.id)}/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${web.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'slow please' }),
    });
    await turn.answered;
    turn.crash();
    const page = await web.page();
    await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
    await expectLost(page);
    await page.context().close();
    void response.then((r) => r.body?.cancel()).catch(() => {});
  });
});
