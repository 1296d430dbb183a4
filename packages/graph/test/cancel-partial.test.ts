import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { describe, expect, it } from 'vitest';
import { agentOverModel, collect, ofType, useCleanups } from './helpers.js';

const cleanups = useCleanups();

/** Streams the first words of an answer, then waits until the call is aborted (a user pressing Ctrl+C). */
class HalfAnswer extends BaseChatModel {
  calls = 0;
  _llmType() {
    return 'half-answer';
  }
  override bindTools() {
    return this as never;
  }
  async _generate(
    _messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    run?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    this.calls++;
    if (this.calls > 1) return { generations: [{ text: 'second', message: new AIMessage('second') }] };
    for (const text of ['The answer ', 'starts like']) {
      const chunk = new ChatGenerationChunk({ text, message: new AIMessageChunk(text) });
      await run?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
    }
    await new Promise((_, reject) =>
      options.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
    );
    throw new Error('unreachable');
  }
}

describe('a cancelled answer', () => {
  it('keeps what was streamed in the thread, marked cancelled; the next turn goes on after it', async () => {
    const model = new HalfAnswer({});
    const { agent } = await agentOverModel(cleanups, model);
    const controller = new AbortController();
    const events: Awaited<ReturnType<typeof collect>> = [];
    for await (const event of agent.stream('question', { threadId: 't1', signal: controller.signal })) {
      events.push(event);
      if (event.type === 'token' && event.text === 'starts like') controller.abort();
    }
    expect(ofType(events, 'done')[0]?.status).toBe('aborted');
    const messages = (await agent.getState('t1')).messages;
    expect(messages.map((m) => m.getType())).toEqual(['human', 'ai']);
    expect(messages[1]?.text).toBe('The answer starts like');
    expect(messages[1]?.response_metadata).toMatchObject({ cancelled: true });

    const next = await collect(agent.stream('go on', { threadId: 't1' }));
    expect(ofType(next, 'done')[0]?.status).toBe('ok');
    expect((await agent.getState('t1')).messages.map((m) => m.text)).toEqual([
      'question',
      'The answer starts like',
      'go on',
      'second',
    ]);
  });
});
