import { getEventListeners } from 'node:events';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { describe, expect, it } from 'vitest';
import { agentOverModel, collect, ofType, useCleanups } from './helpers.js';

const cleanups = useCleanups();

/** Answers at once, or (`wait`) only once its call is aborted, rejecting with the signal's reason. */
class AbortWaiter extends BaseChatModel {
  constructor(private readonly wait: boolean) {
    super({});
  }
  _llmType() {
    return 'abort-waiter';
  }
  override bindTools() {
    return this as never;
  }
  async _generate(_messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    if (this.wait)
      await new Promise((_, reject) =>
        options.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true }),
      );
    return { generations: [{ text: 'done', message: new AIMessage('done') }] };
  }
}

/** Says one token, then waits for its call to be aborted (and records that it was). */
class TokenThenWait extends BaseChatModel {
  aborted = false;
  _llmType() {
    return 'token-then-wait';
  }
  override bindTools() {
    return this as never;
  }
  async _generate(
    _messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    await runManager?.handleLLMNewToken('thinking');
    await new Promise((_, reject) =>
      options.signal?.addEventListener(
        'abort',
        () => {
          this.aborted = true;
          reject(options.signal?.reason);
        },
        { once: true },
      ),
    );
    return { generations: [{ text: 'done', message: new AIMessage('done') }] };
  }
}

describe("the application's abort signal of a turn", () => {
  it('stops a run that has not started, and one whose model call is under way', async () => {
    const { agent } = await agentOverModel(cleanups, new AbortWaiter(true));
    const early = new AbortController();
    early.abort();
    const stopped = await collect(agent.stream('question', { threadId: 'early', signal: early.signal }));
    expect(ofType(stopped, 'done')[0]?.status).toBe('aborted');

    // The model waits for the abort: the run can only end through it.
    const late = new AbortController();
    setTimeout(() => late.abort(), 50);
    const events = await collect(agent.stream('question', { threadId: 'late', signal: late.signal }));
    expect(ofType(events, 'done')[0]?.status).toBe('aborted');
  });

  it('stops the run when its consumer stops reading, and the thread takes the next turn', async () => {
    const model = new TokenThenWait({});
    const { agent } = await agentOverModel(cleanups, model);
    // The model waits for an abort: leaving the loop returns only once the run was stopped.
    for await (const event of agent.stream('question', { threadId: 'left' }))
      if (event.type === 'token') break;
    expect(model.aborted).toBe(true);
    await expect(agent.getState('left')).resolves.toBeDefined();
    const next = agent.stream('again', { threadId: 'left', signal: AbortSignal.abort() });
    expect(ofType(await collect(next), 'done')[0]?.status).toBe('aborted');
  });

  it('is left without listeners of the run once the turn has ended', async () => {
    const { agent } = await agentOverModel(cleanups, new AbortWaiter(false));
    const controller = new AbortController();
    const events = await collect(agent.stream('question', { threadId: 't', signal: controller.signal }));
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
