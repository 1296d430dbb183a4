import {
  AIMessage,
  AIMessageChunk,
  ChatMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import type { Serde } from './codec.js';
import { MessageSerde } from './message-serde.js';

// LangGraph's own serializer (what every checkpointer uses by default) is the reference the direct path must match.
const reference = new MemorySaver().serde as Serde;
const serde = new MessageSerde(reference);

type Outcome = { value: unknown } | { error: string };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Decodes `data` both ways and expects the same value (class, fields, prototype) or the same error. */
async function expectSame(data: string | Uint8Array): Promise<unknown> {
  const slow = await outcome(() => reference.loadsTyped('json', data));
  const fast = await outcome(() => serde.loadsTyped('json', data));
  expect(fast).toStrictEqual(slow);
  if ('value' in slow && 'value' in fast && slow.value && typeof slow.value === 'object') {
    // The same class, or (a `__proto__` key) an equal prototype object.
    const [f, s] = [Object.getPrototypeOf(fast.value), Object.getPrototypeOf(slow.value)];
    if (f !== s) expect(f).toStrictEqual(s);
  }
  return 'value' in fast ? fast.value : undefined;
}

async function dumped(value: unknown): Promise<Uint8Array> {
  const [type, bytes] = await reference.dumpsTyped(value);
  expect(type).toBe('json');
  return bytes;
}

const messages = [
  new HumanMessage('a question'),
  new HumanMessage({ id: 'h-1', content: [{ type: 'text', text: 'with blocks' }], name: 'ann' }),
  new SystemMessage('be brief'),
  new AIMessage({
    id: 'ai-1',
    content: '',
    tool_calls: [{ id: 'call_1', name: 'list_dir', args: { path: '.', depth: 2 }, type: 'tool_call' }],
    invalid_tool_calls: [
      { id: 'call_2', name: 'x', args: '{not json', error: 'bad', type: 'invalid_tool_call' },
    ],
    usage_metadata: { input_tokens: 10, output_tokens: 3, total_tokens: 13 },
    response_metadata: { model_name: 'm', finish_reason: 'tool_calls', nested: { a: [1, null, 'b'] } },
    additional_kwargs: { reasoning: 'because', snake_key: { inner_key: true } },
  }),
  new AIMessage({ id: 'ai-2', content: 'the answer', name: 'researcher' }),
  new AIMessageChunk({ id: 'ai-3', content: 'part' }),
  new ToolMessage({
    tool_call_id: 'call_1',
    content: 'a.txt\nb/',
    name: 'list_dir',
    status: 'error',
    artifact: { files: ['a.txt'], total: 1 },
  }),
  new ChatMessage({ content: 'hi', role: 'critic' }),
  new RemoveMessage({ id: 'ai-1' }),
];

describe('MessageSerde: the direct path decodes exactly as JsonPlusSerializer', () => {
  it('decodes each message class to the same instance', async () => {
    for (const message of messages) {
      const value = await expectSame(await dumped(message));
      expect(value).toBeInstanceOf(message.constructor);
    }
  });

  it('decodes messages inside lists and records (write records, state) and plain JSON', async () => {
    await expectSame(await dumped(messages));
    await expectSame(await dumped({ messages, sender: 'researcher', count: 2, empty: [] }));
    await expectSame(
      await dumped([
        ['messages', messages.slice(0, 2)],
        ['branch:to:agent', null],
      ]),
    );
    for (const plain of ['text', 42, null, true, [], {}, { a: { b: [1, 'two'] } }])
      await expectSame(await dumped(plain));
  });

  it('builds messages itself and asks the serializer only for what it leaves', async () => {
    const asked: string[] = [];
    const counting = new MessageSerde({
      dumpsTyped: (value) => reference.dumpsTyped(value),
      loadsTyped: (type, data) => {
        asked.push(type);
        return reference.loadsTyped(type, data);
      },
    });
    // A chunk's unset usage is LangGraph's `undefined` record: left to the serializer, as a Set is.
    const whole = messages.filter((m) => !(m instanceof AIMessageChunk));
    await counting.loadsTyped('json', await dumped(whole));
    await counting.loadsTyped('json', await dumped({ messages: whole, sender: 'researcher' }));
    expect(asked).toEqual([]);
    await counting.loadsTyped('json', await dumped(new AIMessageChunk({ id: 'c', content: 'part' })));
    await counting.loadsTyped('json', await dumped({ names: new Set(['a']) }));
    expect(asked).toEqual(['json', 'json']);
  });

  it('takes strings as well as bytes', async () => {
    await expectSame(Buffer.from(await dumped(messages)).toString('utf8'));
  });

  it('leaves LangGraph records, other classes and unusual fields to the serializer', async () => {
    // Sets and undefined are LangGraph's own records (lc: 2); a Document is another LangChain class.
    await expectSame(await dumped({ names: new Set(['a']), gone: undefined, message: messages[0] }));
    await expectSame(
      JSON.stringify({
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'documents', 'Document'],
        kwargs: { page_content: 'p' },
      }),
    );
    // An escaped value inside a message's fields (LangChain escapes user objects that look like its records).
    await expectSame(
      JSON.stringify({
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'HumanMessage'],
        kwargs: {
          content: 'x',
          additional_kwargs: { data: { __lc_escaped__: { lc: 1, type: 'secret', id: ['K'] } } },
        },
      }),
    );
  });

  it('refuses what the serializer refuses, with its error', async () => {
    const message = (id: unknown[], kwargs: unknown) =>
      JSON.stringify({ lc: 1, type: 'constructor', id, kwargs });
    await expectSame(message(['langchain_core', 'messages', 'NoSuchMessage'], { content: 'x' }));
    await expectSame(message(['elsewhere', 'messages', 'HumanMessage'], { content: 'x' }));
    await expectSame(
      message(['langchain_core', 'messages', 'HumanMessage'], {
        content: 'x',
        additional_kwargs: { key: { lc: 1, type: 'secret', id: ['BIRDIE_TEST_UNSET_SECRET'] } },
      }),
    );
    let deep: unknown = 'bottom';
    for (let i = 0; i < 60; i += 1) deep = { d: deep };
    await expectSame(
      message(['langchain_core', 'messages', 'HumanMessage'], { content: 'x', additional_kwargs: deep }),
    );
    await expectSame('{not json');
  });

  it('copies a hostile `__proto__` key as the serializer does, never by a different rule', async () => {
    await expectSame('{"__proto__":{"polluted":true},"a":1}');
    await expectSame(
      '{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"x","additional_kwargs":{"__proto__":{"polluted":true}}}}',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads UTF-8 as the serializer does, a leading byte-order mark included', async () => {
    await expectSame(await dumped(new HumanMessage('héllo — 你好 🐦')));
    await expectSame(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(await dumped(messages[0]))]),
    );
  });

  it('passes bytes values and writing through to the serializer', async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    expect(await serde.dumpsTyped(bytes)).toEqual(await reference.dumpsTyped(bytes));
    expect(await serde.loadsTyped('bytes', bytes)).toEqual(await reference.loadsTyped('bytes', bytes));
    expect(await serde.dumpsTyped(messages)).toEqual(await reference.dumpsTyped(messages));
  });
});
