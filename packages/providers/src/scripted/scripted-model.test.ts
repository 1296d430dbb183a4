import {
  AIMessage,
  type AIMessageChunk,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rejection } from '../../test/helpers.js';
import type { RetryEvent } from '../retry.js';
import {
  createScriptedModel,
  MAX_RECORDED_CALLS,
  MAX_RECORDED_MESSAGES,
  type ScriptedChatModel,
} from './scripted-model.js';

const echo = tool(async ({ text }) => text, {
  name: 'echo',
  description: 'Echo text',
  schema: z.object({ text: z.string() }),
});

describe('ScriptedChatModel replies', () => {
  it('answers text in order and estimates usage from characters', async () => {
    const model = createScriptedModel([{ text: 'Hi! How can I help?' }, { text: 'Bye.' }]);
    const first = await model.invoke([new HumanMessage('Hello there')]);
    expect(first).toBeInstanceOf(AIMessage);
    expect(first.content).toBe('Hi! How can I help?');
    // 11 characters in → 3 tokens, 19 out → 5 tokens (about four characters per token).
    expect(first.usage_metadata).toEqual({ input_tokens: 3, output_tokens: 5, total_tokens: 8 });
    expect(first.response_metadata).toMatchObject({ model_provider: 'scripted', finish_reason: 'stop' });
    const second = await model.invoke('And now?');
    expect(second.content).toBe('Bye.');
    expect(model.remaining).toBe(0);
  });

  it('keeps the newest calls only, so a long-running server answering from a script does not grow', async () => {
    const total = MAX_RECORDED_CALLS + 5;
    const model = createScriptedModel(Array.from({ length: total }, (_, i) => ({ text: `reply ${i}` })));
    for (let i = 0; i < total; i++) await model.invoke(`question ${i}`);
    expect(model.calls).toHaveLength(MAX_RECORDED_CALLS);
    expect(model.calls[0]?.reply).toBe(5);
    expect(model.calls.at(-1)?.reply).toBe(total - 1);
  });

  it('keeps at most MAX_RECORDED_MESSAGES messages across its calls, so long sessions do not make the record grow', async () => {
    // A long-running server's sessions grow: each call is sent the whole history, so a record bounded by calls alone
    // holds ever more messages.
    const history = Array.from({ length: 400 }, (_, i) =>
      i % 2 === 0 ? new HumanMessage(`question ${i}`) : new AIMessage(`answer ${i}`),
    );
    const total = 200;
    const model = createScriptedModel(Array.from({ length: total }, (_, i) => ({ text: `reply ${i}` })));
    for (let i = 0; i < total; i++) await model.invoke([...history, new HumanMessage(`question ${i}`)]);
    const held = model.calls.reduce((sum, call) => sum + call.messages.length, 0);
    expect(held).toBeLessThanOrEqual(MAX_RECORDED_MESSAGES);
    expect(model.calls.length).toBeGreaterThan(1);
    expect(model.calls.at(-1)?.reply).toBe(total - 1);
    expect(model.calls.at(-1)?.messages).toHaveLength(history.length + 1);
  });

  it('keeps the newest call even when it alone has more than MAX_RECORDED_MESSAGES messages', async () => {
    const history = Array.from({ length: MAX_RECORDED_MESSAGES + 1 }, (_, i) => new HumanMessage(`q ${i}`));
    const model = createScriptedModel([{ text: 'a' }, { text: 'b' }]);
    await model.invoke('short');
    await model.invoke(history);
    expect(model.calls.map((call) => call.reply)).toEqual([1]);
  });

  it('uses the usage given in the script', async () => {
    const model = createScriptedModel([{ text: 'x', usage: { input_tokens: 100, output_tokens: 7 } }]);
    expect((await model.invoke('q')).usage_metadata).toEqual({
      input_tokens: 100,
      output_tokens: 7,
      total_tokens: 107,
    });
  });

  it('picks the first unused reply whose pattern matches the last human message, else the next plain one', async () => {
    const model = createScriptedModel([
      { match: 'weather', text: 'Sunny.' },
      { text: 'Plain one.' },
      { match: 'TIME|clock', text: 'Noon.' },
      { text: 'Plain two.' },
    ]);
    expect((await model.invoke('what time is it?')).content).toBe('Noon.');
    expect((await model.invoke('tell me a joke')).content).toBe('Plain one.');
    expect((await model.invoke([new HumanMessage('Weather?'), new AIMessage('...')])).content).toBe('Sunny.');
    expect((await model.invoke('weather again')).content).toBe('Plain two.');
    expect(model.calls.map((call) => call.reply)).toEqual([2, 1, 0, 3]);
  });

  it('fails clearly when exhausted, or when only unmatched patterns are left', async () => {
    const model = createScriptedModel([{ text: 'only' }], { source: '/tmp/demo.json' });
    await model.invoke('one');
    const exhausted = await rejection(model.invoke('two'));
    expect(exhausted.code).toBe('script-exhausted');
    expect(exhausted.message).toBe(
      'Script /tmp/demo.json is exhausted: all 1 replies were used (last human message: "two")',
    );

    const picky = createScriptedModel([{ match: '^deploy', text: 'ok' }]);
    const unmatched = await rejection(picky.invoke('hello'));
    expect(unmatched.message).toBe(
      'The script has no reply for the last human message "hello": the unused replies need /^deploy/',
    );
  });

  it('returns tool calls with generated or scripted ids, through bindTools, across turns', async () => {
    const model = createScriptedModel([
      {
        tool_calls: [
          { name: 'echo', args: { text: 'a' } },
          { name: 'echo', args: { text: 'b' }, id: 'fixed-id' },
        ],
      },
      { text: 'Done.' },
    ]);
    const bound = model.bindTools([echo]);
    const ai = await bound.invoke([new SystemMessage('sys'), new HumanMessage('echo twice')]);
    expect(ai.tool_calls).toHaveLength(2);
    expect(ai.tool_calls![0]).toMatchObject({ name: 'echo', args: { text: 'a' }, type: 'tool_call' });
    expect(ai.tool_calls![0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(ai.tool_calls![1]).toMatchObject({ id: 'fixed-id', args: { text: 'b' } });
    expect(ai.response_metadata.finish_reason).toBe('tool_calls');
    expect(ai.usage_metadata!.output_tokens).toBeGreaterThan(0);

    const results = await Promise.all(
      ai.tool_calls!.map(
        async (call) =>
          new ToolMessage({
            content: String(await echo.invoke(call.args as { text: string })),
            tool_call_id: call.id!,
          }),
      ),
    );
    const final = await bound.invoke([new HumanMessage('echo twice'), ai, ...results]);
    expect(final.content).toBe('Done.');
    expect(model.calls.map((call) => call.tools)).toEqual([['echo'], ['echo']]);
    expect(model.calls[1]!.messages.map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'tool']);
  });

  it('streams token by token unless the reply or the script says otherwise', async () => {
    const collect = async (model: ScriptedChatModel) => {
      const chunks: AIMessageChunk[] = [];
      for await (const chunk of await model.stream('go')) chunks.push(chunk);
      return chunks;
    };
    const tokens = await collect(createScriptedModel([{ text: 'The quick  brown fox' }]));
    expect(tokens.map((c) => c.content)).toEqual(['The ', 'quick  ', 'brown ', 'fox', '']);
    const whole = tokens.reduce((a, b) => a.concat(b));
    expect(whole.content).toBe('The quick  brown fox');
    expect(whole.usage_metadata).toMatchObject({ input_tokens: 1, output_tokens: 5, total_tokens: 6 });

    const oneChunk = await collect(createScriptedModel([{ text: 'The quick fox', stream: false }]));
    expect(oneChunk.map((c) => c.content)).toEqual(['The quick fox', '']);
    const scriptLevel = await collect(createScriptedModel({ stream: false, replies: [{ text: 'a b c' }] }));
    expect(scriptLevel.map((c) => c.content)).toEqual(['a b c', '']);

    const toolStream = await collect(
      createScriptedModel([{ text: 'Let me see.', tool_calls: [{ name: 'echo', args: { text: 'x' } }] }]),
    );
    const merged = toolStream.reduce((a, b) => a.concat(b));
    expect(merged.tool_calls).toMatchObject([{ name: 'echo', args: { text: 'x' } }]);
  });

  it('emits token events for streamEvents, as LangGraph message streaming uses', async () => {
    const model = createScriptedModel([{ text: 'one two three' }]);
    const tokens: string[] = [];
    for await (const event of model.streamEvents('count', { version: 'v2' })) {
      if (event.event === 'on_chat_model_stream') tokens.push(event.data.chunk.content);
    }
    expect(tokens.filter(Boolean)).toEqual(['one ', 'two ', 'three']);
  });
});

describe('ScriptedChatModel simulated failures', () => {
  it('retries 5xx and 429 replies like a vendor, reporting each retry', async () => {
    const retries: RetryEvent[] = [];
    const model = createScriptedModel(
      [{ error: { status: 503 } }, { error: { status: 429, retry_after: 0 } }, { text: 'finally' }],
      { maxRetries: 2, onRetry: (event) => retries.push(event) },
    );
    expect((await model.invoke('hi')).content).toBe('finally');
    expect(retries).toEqual([
      { attempt: 1, status: 503, delayMs: 0 },
      { attempt: 2, status: 429, delayMs: 0 },
    ]);
  });

  it('gives up after max_retries with a typed error', async () => {
    const model = createScriptedModel(
      [
        { error: { status: 429, retry_after: 0 } },
        { error: { status: 429, retry_after: 0, message: 'slow down' } },
      ],
      { maxRetries: 1 },
    );
    const error = await rejection(model.invoke('hi'));
    expect(error).toMatchObject({ code: 'rate-limited', status: 429, vendor: 'scripted' });
    expect(error.message).toBe(
      'scripted is rate limiting requests (HTTP 429) after 1 retry; wait and try again, or raise max_retries. Server said: slow down',
    );
    const overloaded = await rejection(
      createScriptedModel([{ error: { status: 529 } }], { maxRetries: 0 }).invoke('x'),
    );
    expect(overloaded).toMatchObject({ code: 'server-error', status: 529 });
  });

  it('does not wait for a Retry-After longer than allowed', async () => {
    const retries: RetryEvent[] = [];
    const model = createScriptedModel([{ error: { status: 429, retry_after: 120 } }, { text: 'never' }], {
      maxRetryDelayMs: 1000,
      onRetry: (event) => retries.push(event),
    });
    expect((await rejection(model.invoke('x'))).code).toBe('rate-limited');
    expect(retries).toEqual([]);
    expect(model.remaining).toBe(1);
  });

  it('fails at once on 401 and other client errors', async () => {
    const auth = await rejection(createScriptedModel([{ error: { status: 401 } }]).invoke('x'));
    expect(auth).toMatchObject({ code: 'auth-failed', status: 401 });
    // The script simulates it: no key variable is to blame, and the message says which reply did it.
    expect(auth.envVar).toBeUndefined();
    expect(auth.message).toBe(
      'scripted rejected the credentials (HTTP 401): simulated by reply 1 of the script; no key is involved. Server said: simulated HTTP 401',
    );
    expect(auth.message).not.toContain('LLM_SCRIPT');
    const bad = await rejection(
      createScriptedModel([{ error: { status: 400, message: 'bad tool schema' } }]).invoke('x'),
    );
    expect(bad.message).toBe('scripted refused the request (HTTP 400): bad tool schema');
  });

  it('waits token_delay_ms before each streamed token, and an abort stops it mid-answer', async () => {
    const model = createScriptedModel([{ text: 'one two three four five', token_delay_ms: 30 }]);
    const controller = new AbortController();
    const seen: string[] = [];
    const stream = await model.stream('x', { signal: controller.signal });
    const reading = (async () => {
      for await (const chunk of stream) {
        if (chunk.text) seen.push(chunk.text);
        if (seen.length === 2) controller.abort();
      }
    })();
    await expect(reading).rejects.toThrow();
    expect(seen.join('')).toBe('one two ');
    expect(() => createScriptedModel([{ text: 'x', token_delay_ms: -1 }])).toThrow(
      /token_delay_ms must not be negative/,
    );
  });

  it('honours an aborted signal', async () => {
    const model = createScriptedModel([{ text: 'never' }]);
    await expect(model.invoke('x', { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(model.remaining).toBe(1);
  });
});

describe('script validation', () => {
  it('names the reply and field of a problem', () => {
    const cases: Array<[unknown, string]> = [
      [[{}], 'Invalid script: replies.0 needs "text", "tool_calls" or "error"'],
      [
        [{ text: 'a' }, { match: '(', text: 'b' }],
        'Invalid script: replies.1.match must be a valid regular expression',
      ],
      [
        [{ tool_calls: [{ name: 'has space' }] }],
        'Invalid script: replies.0.tool_calls.0.name must be 1–64 letters, digits, _ or -',
      ],
      [
        [{ text: 'a', error: { status: 500 } }],
        'Invalid script: replies.0 "error" cannot be combined with "text" or "tool_calls"',
      ],
      [[{ text: 'a', colour: 'red' }], 'Invalid script: unknown field "colour" in replies.0'],
      [
        { replies: [{ error: { status: 200 } }] },
        'Invalid script: replies.0.error.status must be an HTTP error status (400–599)',
      ],
      [{ reply: [] }, 'Invalid script: replies must be an array'],
      ['nope', 'Invalid script: the script must be an array of replies or an object with "replies"'],
    ];
    for (const [script, message] of cases) {
      expect(() => createScriptedModel(script as never)).toThrow(message);
    }
  });
});
