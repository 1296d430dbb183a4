/// <reference lib="dom" />
// Code here runs in the page too (page.evaluate), so the browser's globals are typed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebServe, type WebServe } from './helpers/web.js';

// The web app's harness itself (issue 34): a real `birdie serve` with the scripted model, a token, and headless
// Chromium. The page streams a turn the way the app does (fetch and a reader: an EventSource cannot send the token).

let web: WebServe;

beforeAll(async () => {
  web = await startWebServe({ replies: [{ match: 'hello', text: 'Hello **there**, from the script.' }] });
}, 120_000);

afterAll(async () => {
  await web?.close();
});

describe('birdie serve in Chromium', { timeout: 120_000 }, () => {
  it('serves / with the CSP; the page streams a turn with its token through fetch and a reader', async () => {
    const page = await web.page();
    const response = await page.goto(`${web.url}/`);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');

    const streamed = await page.evaluate(async () => {
      const { sessionStorage } = globalThis as unknown as { sessionStorage: { getItem(k: string): string } };
      const authorization = `Bearer ${sessionStorage.getItem('birdie.token')}`;
      const json = { authorization, 'content-type': 'application/json' };
      const session = await (
        await fetch('/v1/sessions', { method: 'POST', headers: json, body: '{}' })
      ).json();
      const turn = await fetch(`/v1/sessions/${session.id}/turns`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ prompt: 'hello' }),
      });
      const reader = turn.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      let reads = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        reads += 1;
        text += decoder.decode(value, { stream: true });
      }
      const events = text
        .split('\n\n')
        .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
        .map((line) => JSON.parse(line.slice(6)) as { type: string; text?: string; status?: string });
      return { status: turn.status, type: turn.headers.get('content-type'), reads, events };
    });
    expect(streamed.status).toBe(200);
    expect(streamed.type).toContain('text/event-stream');
    expect(streamed.reads).toBeGreaterThan(0);
    const tokens = streamed.events
      .filter((e) => e.type === 'token')
      .map((e) => e.text)
      .join('');
    expect(tokens).toBe('Hello **there**, from the script.');
    expect(streamed.events.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    await page.context().close();
  });

  it("a second user's token sees none of the first user's sessions from the page", async () => {
    const page = await web.page({ signedInAs: await web.tokenOf('bob') });
    await page.goto(`${web.url}/`);
    const sessions = await page.evaluate(async () => {
      const { sessionStorage } = globalThis as unknown as { sessionStorage: { getItem(k: string): string } };
      const response = await fetch('/v1/sessions', {
        headers: { authorization: `Bearer ${sessionStorage.getItem('birdie.token')}` },
      });
      return ((await response.json()) as { sessions: unknown[] }).sessions;
    });
    expect(sessions).toEqual([]);
    await page.context().close();
  });
});
