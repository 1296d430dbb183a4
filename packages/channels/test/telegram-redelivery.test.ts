import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, OWNER, startHarness, telegramCore } from './harness.js';

const SECRET = 'webhook-secret-never-logged_42';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

async function post(url: string, body: unknown): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Polls `check` until it holds (or fails after 30 s). */
async function until(what: string, check: () => Promise<boolean>) {
  const end = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a Telegram update delivered more than once', () => {
  it('runs once when the webhook gets the same update_id twice, and again after a restart', async () => {
    h = await startHarness({
      script: [{ text: 'Hello once.' }, { text: 'Hello twice.' }, { text: 'Hello thrice.' }],
      channels: { telegram: { mode: 'webhook', webhook_port: 0 } },
      env: { BIRDIE_TELEGRAM_WEBHOOK_SECRET: SECRET },
    });
    const update = { update_id: 7001, ...h.api.message(OWNER, OWNER, 'hi') };
    const seen = (harness: Harness, from: number) =>
      until(
        'the second delivery handled',
        async () =>
          harness.logs.slice(from).some((l) => l.includes('already delivered')) ||
          (await harness.setup.rt.store.runs.list({ userId: 'alice' })).length > 1,
      );
    expect(await post(h.running.channels.telegram?.url as string, update)).toBe(200);
    expect(await post(h.running.channels.telegram?.url as string, update)).toBe(200);
    await h.api.waitFor('the answer', () => h?.api.messagesIn(OWNER).find((m) => m.text.includes('Hello')));
    await seen(h, 0);
    await telegramCore(h).idle();
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(1);
    expect(h.api.messagesIn(OWNER).map((m) => m.text.trim())).toEqual(['Hello once\\.']);

    await h.stop();
    await h.restart();
    const before = h.logs.length;
    expect(await post(h.running.channels.telegram?.url as string, update)).toBe(200);
    await seen(h, before);
    await telegramCore(h).idle();
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(1);
    expect(h.api.messagesIn(OWNER)).toHaveLength(1);
  });

  it('handles the redelivery when handling failed before the turn was queued (the claim is released)', async () => {
    h = await startHarness({
      script: [{ text: 'Hello group.' }],
      channels: { telegram: { mode: 'webhook', webhook_port: 0 } },
      env: { BIRDIE_TELEGRAM_WEBHOOK_SECRET: SECRET },
    });
    const group = -1001;
    const update = {
      update_id: 7002,
      ...h.api.message(group, OWNER, '@birdie_test_bot say hello', {}, 'supergroup'),
    };
    // The step after the claim (adopting the group session) fails once, as a store hiccup would.
    const book = telegramCore(h).options.book;
    const chat = book.chat.bind(book);
    let failures = 0;
    book.chat = (key) => {
      if (failures++ === 0) throw new Error('book unavailable');
      return chat(key);
    };
    const url = h.running.channels.telegram?.url as string;
    await post(url, update);
    await until('the failure', async () => failures > 0);
    await telegramCore(h).idle();
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(0);
    // Telegram retries the update: it runs.
    await post(url, update);
    await h.api.waitFor('the answer', () => h?.api.messagesIn(group).find((m) => m.text.includes('Hello')));
    await telegramCore(h).idle();
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(1);
    expect(h.logs.some((l) => l.includes('already delivered'))).toBe(false);
  });
});
