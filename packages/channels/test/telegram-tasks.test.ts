import { startUnattended } from '@birdie/runtime/unattended-loop';
import type { FakeMessage } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, OWNER, startHarness, telegramCore } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

const last = (messages: FakeMessage[]) => messages.at(-1)?.text ?? '';

describe('chat commands and scheduled tasks from Telegram', () => {
  it('reports a task scheduled from the chat back into the chat when it runs', async () => {
    const at = new Date(Date.now() + 3000).toISOString();
    h = await startHarness({
      scheduler: true,
      script: [
        { match: 'remind', tool_calls: [{ name: 'schedule_task', args: { prompt: 'say tick', at } }] },
        { match: 'remind', text: 'Scheduled.' },
        { match: 'tick', text: 'Tick report.' },
      ],
    });
    const { api } = h;
    api.push(api.message(OWNER, OWNER, '/enable scheduler'));
    await api.waitFor('enabled', () => last(api.messagesIn(OWNER)).includes('Enabled'));
    api.push(api.message(OWNER, OWNER, 'remind me in a moment'));
    const question = await api.waitFor('the approval of the task', () =>
      api.messagesIn(OWNER).find((m) => m.buttons !== undefined),
    );
    api.push(api.press(question, OWNER, question.buttons?.[0]?.[0]?.callback_data as string));
    await api.waitFor('scheduled', () => api.messagesIn(OWNER).find((m) => m.text.includes('Scheduled')));
    await telegramCore(h).idle();
    // Whoever runs the user's tasks (here `birdie start`'s loop on the same store), the chat gets the result.
    const loop = await startUnattended(h.setup.rt, { onEvent: () => undefined, taskPollMs: 200 });
    try {
      const report = await api.waitFor('the report', () =>
        api.messagesIn(OWNER).find((m) => m.text.includes('Tick report')),
      );
      expect(report.text).toMatch(/^⏰ \*task 1/);
    } finally {
      await loop.stop(1000);
    }
  });

  it('/new, /model, /skills and unknown commands', async () => {
    h = await startHarness({ script: [{ text: 'hi' }] });
    const { api } = h;
    api.push(api.message(OWNER, OWNER, '/model'));
    await api.waitFor('model', () => last(api.messagesIn(OWNER)).includes('scripted'));
    api.push(api.message(OWNER, OWNER, '/model scripted:other'));
    await api.waitFor('model set', () => last(api.messagesIn(OWNER)).includes('Model: `scripted:other`'));
    // Review of the `config set model` fix: an unknown vendor or a tier no provider section defines was saved
    // ("Model: zork:gpt-4.") and every later turn failed; it is refused when named, saying why.
    api.push(api.message(OWNER, OWNER, '/model zork:gpt-4'));
    await api.waitFor('vendor refused', () =>
      last(api.messagesIn(OWNER)).startsWith("Can't use `zork:gpt-4`"),
    );
    api.push(api.message(OWNER, OWNER, '/model strong'));
    await api.waitFor('tier refused', () => last(api.messagesIn(OWNER)).includes('No model tier "strong"'));
    api.push(api.message(OWNER, OWNER, '/model nonsense model'));
    await api.waitFor('model refused', () => last(api.messagesIn(OWNER)).includes('Name a tier'));
    api.push(api.message(OWNER, OWNER, '/skills'));
    await api.waitFor('skills', () => last(api.messagesIn(OWNER)).includes('shouter'));
    api.push(api.message(OWNER, OWNER, '/enable shoutr'));
    await api.waitFor('did you mean', () => last(api.messagesIn(OWNER)).includes('Did you mean'));
    api.push(api.message(OWNER, OWNER, '/new'));
    await api.waitFor('new session', () => last(api.messagesIn(OWNER)).includes('New session'));
    api.push(api.message(OWNER, OWNER, '/frobnicate'));
    await api.waitFor('unknown', () => last(api.messagesIn(OWNER)).includes('No command'));
    await telegramCore(h).idle();
    expect(await h.setup.rt.store.sessions.list('alice')).toHaveLength(2);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });
});
