import { join } from 'node:path';
import type { Page } from '@birdie/test-utils';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { TurnHandlers } from '../src/runtime.js';
import { useBrowserServer } from './browser.js';
import { gate, turnWritesStop } from './helpers.js';

// What a chat shows when it is opened (a reload, another device) after its newest API turn, in headless Chromium
// against a real listening server. The app replays that turn's recorded events after the history when the history
// does not say how the turn ended; a turn the history moved past (a later prompt from the CLI, which writes to the
// same store without an API turn) is not replayed, and a turn lost after some of its steps were saved is shown lost.

const LOST = 'the worker running this turn stopped';
const grants = { enabled: [], disabled: [] };
type Messages = Array<{ role: string; content: string } & Record<string, unknown>>;

describe('a chat opened after its newest API turn', { timeout: 60_000 }, () => {
  const web = useBrowserServer({
    webRoot: join(import.meta.dirname, '..', 'dist', 'web'),
    eventPollMs: 20,
    tokenFlushMs: 20,
    lostTurnMs: 300,
  });
  const released: Array<() => unknown> = [];
  afterEach(async () => {
    // The fake runtime's own methods again (the tests set these on the instance).
    Reflect.deleteProperty(web.runtime, 'history');
    Reflect.deleteProperty(web.runtime, 'runTurn');
    for (const release of released.splice(0)) await release();
  });
  afterAll(() => {
    for (const release of released.splice(0)) void release();
  });

  const showing = (messages: Messages) => {
    web.runtime.history = async () => ({ messages, grants });
  };

  /** POST …/turns through the API (another tab, a script) and read its stream to the end. */
  async function apiTurn(session: string, prompt: string): Promise<string> {
    const response = await fetch(`${web.url}/v1/sessions/${encodeURIComponent(session)}/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${web.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
    expect(response.status).toBe(200);
    return response.text();
  }

  async function open(session: string): Promise<Page> {
    const page = await web.page();
    await page.goto(`${web.url}/#/s/${encodeURIComponent(session)}`);
    await page.locator('#prompt').waitFor();
    return page;
  }

  /** The chat is open: its history shown, and the replay of its newest API turn (if any) shown or dropped. */
  const settled = (page: Page) => page.locator('.log[aria-busy="false"]').waitFor();

  const count = (text: string, part: string) => text.split(part).length - 1;

  it('whose history ends on a later prompt from the CLI does not show that older turn after it', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'OLD ANSWER' });
      handlers.onEvent({ type: 'message', message: new AIMessage({ id: 'ai-old', content: 'OLD ANSWER' }) });
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 1, outputTokens: 1 };
    };
    await apiTurn(session.id, 'first question');
    // Then the CLI asked something on the same session (its turn is still to answer, or died unanswered).
    showing([
      { role: 'human', id: 'human-1', content: 'first question' },
      { role: 'ai', id: 'ai-old', content: 'OLD ANSWER' },
      { role: 'human', id: 'human-2', content: 'later from the CLI' },
    ]);
    const page = await open(session.id);
    await page.locator('.msg.user', { hasText: 'later from the CLI' }).waitFor();
    await settled(page);
    const log = await page.locator('.log').innerText();
    expect(count(log, 'OLD ANSWER')).toBe(1);
    expect(log.trim().endsWith('later from the CLI')).toBe(true);
    // Nor how that turn ended: the chat's last turn is not known to have run.
    expect(await page.locator('.turn-status').innerText()).toBe('Ready');
    await page.context().close();
  });

  it('whose older turn saved nothing does not show its error after a later CLI turn that stopped in its tool steps', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'half an ans' });
      handlers.onEvent({ type: 'error', error: { code: 'model', message: 'THE OLD MODEL FAILED' } });
      handlers.onEvent({ type: 'done', status: 'error' });
      return { status: 'error', inputTokens: 0, outputTokens: 0 };
    };
    await apiTurn(session.id, 'first question');
    // The CLI's turn then saved a tool step and stopped (unfinished: the app looks for a turn to replay).
    const call = { id: 'call-cli', name: 'run_bash', args: { command: 'ls' } };
    showing([
      { role: 'human', id: 'human-1', content: 'first question' },
      { role: 'human', id: 'human-2', content: 'later from the CLI' },
      { role: 'ai', id: 'ai-cli', content: '', tool_calls: [call] },
      { role: 'tool', id: 'tool-cli', tool_call_id: 'call-cli', content: 'CLI LISTING' },
    ]);
    const page = await open(session.id);
    await page.locator('.msg.user', { hasText: 'later from the CLI' }).waitFor();
    await settled(page);
    const log = await page.locator('.log').innerText();
    expect(log).not.toContain('THE OLD MODEL FAILED');
    expect(log).not.toContain('half an ans');
    expect(await page.locator('.tool').count()).toBe(1);
    expect(await page.locator('.turn-status').innerText()).toBe('Ready');
    await page.context().close();
  });

  it('whose older turn saved nothing does not show its error after a later CLI prompt that was never answered', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'half an ans' });
      handlers.onEvent({ type: 'error', error: { code: 'model', message: 'THE OLD MODEL FAILED' } });
      handlers.onEvent({ type: 'done', status: 'error' });
      return { status: 'error', inputTokens: 0, outputTokens: 0 };
    };
    await apiTurn(session.id, 'first question');
    // The CLI then asked something, and its turn died before any answer: the history stops on its prompt.
    showing([
      { role: 'human', id: 'human-1', content: 'first question' },
      { role: 'human', id: 'human-2', content: 'later from the CLI' },
    ]);
    const page = await open(session.id);
    await page.locator('.msg.user', { hasText: 'later from the CLI' }).waitFor();
    await settled(page);
    const log = await page.locator('.log').innerText();
    expect(log).not.toContain('THE OLD MODEL FAILED');
    expect(log).not.toContain('half an ans');
    expect(log.trim().endsWith('later from the CLI')).toBe(true);
    expect(await page.locator('.turn-status').innerText()).toBe('Ready');
    await page.context().close();
  });

  it('while the CLI runs a turn on it (the run log says one runs) does not follow the older API turn', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'OLD ANSWER' });
      handlers.onEvent({ type: 'message', message: new AIMessage({ id: 'ai-old', content: 'OLD ANSWER' }) });
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 1, outputTokens: 1 };
    };
    await apiTurn(session.id, 'first question');
    // The CLI's turn: it holds the session and its run is logged running.
    const lease = await web.store.leases.acquire(session.id, { waitMs: 0 });
    released.push(() => lease.release());
    await web.store.runs.start({ sessionId: session.id, userId: 'alice', model: 'scripted' });
    showing([
      { role: 'human', id: 'human-1', content: 'first question' },
      { role: 'ai', id: 'ai-old', content: 'OLD ANSWER' },
      { role: 'human', id: 'human-2', content: 'later from the CLI' },
    ]);
    const page = await open(session.id);
    await page.locator('.msg.user', { hasText: 'later from the CLI' }).waitFor();
    await settled(page);
    const log = await page.locator('.log').innerText();
    expect(count(log, 'OLD ANSWER')).toBe(1);
    expect(log.trim().endsWith('later from the CLI')).toBe(true);
    await page.context().close();
  });

  it('whose turn answered the last prompt and ended normally shows its answer once', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'THE ANSWER' });
      handlers.onEvent({ type: 'message', message: new AIMessage({ id: 'ai-1', content: 'THE ANSWER' }) });
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 1, outputTokens: 1 };
    };
    await apiTurn(session.id, 'a question');
    showing([
      { role: 'human', id: 'human-1', content: 'a question' },
      { role: 'ai', id: 'ai-1', content: 'THE ANSWER' },
    ]);
    const page = await open(session.id);
    await page.locator('.msg.assistant', { hasText: 'THE ANSWER' }).waitFor();
    await settled(page);
    expect(count(await page.locator('.log').innerText(), 'THE ANSWER')).toBe(1);
    await page.context().close();
  });

  it('whose turn was lost after its tool steps were saved shows them once and the turn lost', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    const stepsSaved = gate();
    const never = gate();
    released.push(never.open);
    const call = { id: 'call-1', name: 'run_bash', args: { command: 'ls' } };
    web.runtime.runTurn = async (s, _input, handlers: TurnHandlers) => {
      const lease = await web.store.leases.acquire(s.id, { waitMs: 0 });
      handlers.onLeased(lease);
      handlers.onEvent({
        type: 'message',
        message: new AIMessage({ id: 'ai-1', content: '', tool_calls: [{ ...call, type: 'tool_call' }] }),
      });
      handlers.onEvent({ type: 'tool-start', id: 'call-1', name: 'run_bash', args: call.args });
      handlers.onEvent({
        type: 'tool-end',
        id: 'call-1',
        name: 'run_bash',
        ok: true,
        output: 'LISTING',
        truncated: false,
        durationMs: 5,
      });
      handlers.onEvent({
        type: 'message',
        message: new ToolMessage({ id: 'tool-1', tool_call_id: 'call-1', content: 'LISTING' }),
      });
      handlers.onEvent({ type: 'token', text: 'Now the summ' });
      // Another event records the tokens before it.
      handlers.onEvent({ type: 'usage', model: 'scripted', inputTokens: 1, outputTokens: 1 });
      // kill -9 here: the lease goes (it expires), the turn never ends, nothing marks it alive.
      released.push(await turnWritesStop(web.store, s, 'usage'));
      await lease.release();
      stepsSaved.open();
      await never.promise;
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    const response = fetch(`${web.url}/v1/sessions/${encodeURIComponent(session.id)}/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${web.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'list the files' }),
    });
    released.push(() => response.then((r) => r.body?.cancel()).catch(() => {}));
    await stepsSaved.promise;
    showing([
      { role: 'human', id: 'human-1', content: 'list the files' },
      { role: 'ai', id: 'ai-1', content: '', tool_calls: [call] },
      { role: 'tool', id: 'tool-1', tool_call_id: 'call-1', content: 'LISTING' },
    ]);
    const page = await open(session.id);
    await page.locator('.notice.error', { hasText: LOST }).waitFor({ timeout: 30_000 });
    const log = await page.locator('.log').innerText();
    expect(await page.locator('.tool').count()).toBe(1);
    expect(count(log, 'list the files')).toBe(1);
    expect(log).toContain('Now the summ');
    expect(await page.locator('.turn-status').innerText()).toBe('Last turn: error');
    // And so it stays on the next reload.
    await page.reload();
    await page.locator('.notice.error', { hasText: LOST }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.tool').count()).toBe(1);
    await page.context().close();
  });
});
