import { afterEach, describe, expect, it } from 'vitest';
import { isChannelError } from '../src/index.js';
import { type Harness, OWNER, startHarness, telegramCore } from './harness.js';

const SECRET = 'webhook-secret-never-logged_42';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

async function post(url: string, body: unknown, secret?: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(secret !== undefined ? { 'x-telegram-bot-api-secret-token': secret } : {}),
    },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('the Telegram webhook', () => {
  it('refuses to start without a secret', async () => {
    const started = startHarness({
      script: [{ text: 'x' }],
      channels: { telegram: { mode: 'webhook', webhook_port: 0 } },
    });
    await expect(started).rejects.toSatisfy(
      (error) =>
        isChannelError(error) && error.code === 'channel-config' && /needs a secret/.test(error.message),
    );
  });

  it('refuses calls with a missing or wrong secret and handles the right one', async () => {
    h = await startHarness({
      script: [{ text: 'Hello from the webhook.' }],
      channels: {
        telegram: { mode: 'webhook', webhook_port: 0, webhook_url: 'https://bot.example/telegram' },
      },
      env: { BIRDIE_TELEGRAM_WEBHOOK_SECRET: SECRET },
    });
    const { api } = h;
    const url = h.running.channels.telegram?.url as string;
    // Registered with Telegram with the secret, and no polling.
    expect(api.callsOf('setWebhook').map((c) => c.params)).toEqual([
      { url: 'https://bot.example/telegram', secret_token: SECRET },
    ]);
    expect(api.callsOf('getUpdates')).toEqual([]);
    const update = (id: number) => ({ update_id: id, ...api.message(OWNER, OWNER, 'hi') });
    expect(await post(url, update(1))).toBe(401);
    expect(await post(url, update(2), 'wrong-secret')).toBe(401);
    await telegramCore(h).idle();
    expect(api.callsOf('sendMessage')).toEqual([]);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
    expect(await post(url, update(3), SECRET)).toBe(200);
    await api.waitFor('the answer', () =>
      api.messagesIn(OWNER).find((m) => m.text.includes('Hello from the webhook')),
    );
  });
});
