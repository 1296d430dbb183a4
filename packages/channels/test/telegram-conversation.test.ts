import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSAL, toTelegram } from '../src/index.js';
import { type Harness, OWNER, STRANGER, startHarness, telegramCore } from './harness.js';

const ANSWER =
  'Birds are warm blooded vertebrates with feathers and beaks and they lay hard shelled eggs and most of them can fly';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

describe('a Telegram conversation through the fake Bot API', () => {
  it('streams the answer into one message, edited as it grows', async () => {
    h = await startHarness({ script: { stream: true, replies: [{ text: ANSWER, token_delay_ms: 40 }] } });
    const api = h.api;
    api.push(api.message(OWNER, OWNER, 'tell me about birds'));
    const final = await api.waitFor('the whole answer', () =>
      api.messagesIn(OWNER).find((m) => m.text === toTelegram(ANSWER)),
    );
    await telegramCore(h).idle();
    // One message, sent with the first tokens and edited until it held the whole answer.
    expect(api.messagesIn(OWNER)).toHaveLength(1);
    expect(final.versions.length).toBeGreaterThanOrEqual(3);
    expect(final.versions[0]?.length).toBeLessThan(toTelegram(ANSWER).length);
    expect(api.callsOf('editMessageText').length).toBe(final.versions.length - 1);
    expect(api.callsOf('sendMessage')[0]?.params.parse_mode).toBe('MarkdownV2');
    const runs = await h.setup.rt.store.runs.list({ userId: 'alice' });
    expect(runs.map((r) => r.status)).toEqual(['ok']);
  });

  it('refuses a stranger once, politely, without a session or a model call', async () => {
    h = await startHarness({ script: [{ text: 'never said' }] });
    const api = h.api;
    api.push(api.message(STRANGER, STRANGER, 'hello?'));
    api.push(api.message(STRANGER, STRANGER, 'hello again?'));
    await api.waitFor('the refusal', () => api.messagesIn(STRANGER).length === 1);
    // The second message was read too (the next getUpdates confirmed it) and got nothing.
    await api.waitFor('both updates read', () =>
      api.callsOf('getUpdates').some((c) => Number(c.params.offset) > 2),
    );
    await telegramCore(h).idle();
    expect(api.messagesIn(STRANGER).map((m) => m.text)).toEqual([toTelegram(REFUSAL)]);
    expect(await h.setup.rt.store.sessions.list('alice')).toEqual([]);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
    expect(h.logs.join('\n')).toContain(`refused user ${STRANGER}`);
  });

  it('answers in a group only when mentioned', async () => {
    h = await startHarness({ script: [{ text: 'Hello group.' }] });
    const api = h.api;
    const group = -1001;
    api.push(api.message(group, OWNER, 'just chatting', {}, 'supergroup'));
    api.push(api.message(group, OWNER, '@birdie_test_bot say hello', {}, 'supergroup'));
    await api.waitFor('the answer', () => api.messagesIn(group).find((m) => m.text.includes('Hello group')));
    await telegramCore(h).idle();
    expect(api.messagesIn(group)).toHaveLength(1);
    const runs = await h.setup.rt.store.runs.list({ userId: 'alice' });
    expect(runs).toHaveLength(1);
  });

  it('splits a long answer into several messages', async () => {
    const paragraph = 'word '.repeat(300).trim();
    const long = Array.from({ length: 5 }, (_, i) => `Part ${i + 1}. ${paragraph}`).join('\n\n');
    h = await startHarness({ script: [{ text: long, stream: false }] });
    const api = h.api;
    api.push(api.message(OWNER, OWNER, 'a long one please'));
    await api.waitFor('the last part', () => api.messagesIn(OWNER).find((m) => m.text.startsWith('Part 5')));
    await telegramCore(h).idle();
    const texts = api.messagesIn(OWNER).map((m) => m.text);
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(4096);
    // Cut between paragraphs, nothing lost (MarkdownV2 escapes the dots; the converter ends each with a newline).
    expect(texts.map((t) => t.trimEnd().replaceAll('\\', '')).join('\n\n')).toBe(long);
  });

  it("goes on with a group session kept under the chat's own key (a book from before per-user sessions)", async () => {
    h = await startHarness({
      script: [
        { match: 'one', text: 'First.' },
        { match: 'two', text: 'Second.' },
      ],
    });
    const api = h.api;
    const group = -1001;
    api.push(api.message(group, OWNER, '@birdie_test_bot one', {}, 'supergroup'));
    await api.waitFor('the first answer', () => api.messagesIn(group).find((m) => m.text.includes('First')));
    await telegramCore(h).idle();
    await h.stop();
    // The book as an older release wrote it: the group's session under the group's key.
    const path = join(h.home, 'channels.json');
    const book = JSON.parse(await readFile(path, 'utf8'));
    expect(Object.keys(book.chats)).toEqual([`telegram_${group}:${OWNER}`]);
    book.chats = { [`telegram_${group}`]: book.chats[`telegram_${group}:${OWNER}`] };
    await writeFile(path, JSON.stringify(book));
    await h.restart();
    api.push(api.message(group, OWNER, '@birdie_test_bot two', {}, 'supergroup'));
    await api.waitFor('the second answer', () =>
      api.messagesIn(group).find((m) => m.text.includes('Second')),
    );
    await telegramCore(h).idle();
    expect(await h.setup.rt.store.sessions.list('alice')).toHaveLength(1);
  });
});
