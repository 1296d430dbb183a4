import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpStdioTransport } from './mcp-stdio-transport.js';

/** A transport on in-memory streams, with what it delivered and wrote. */
async function open(maxLine?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: Array<Record<string, unknown>> = [];
  let pending = '';
  output.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      written.push(JSON.parse(pending.slice(0, nl)));
      pending = pending.slice(nl + 1);
    }
  });
  const notes: string[] = [];
  const transport = new McpStdioTransport(input, output, {
    ...(maxLine !== undefined ? { maxLine } : {}),
    onRefused: (note) => notes.push(note),
  });
  const received: JSONRPCMessage[] = [];
  let closed = false;
  transport.onmessage = (message) => received.push(message);
  transport.onclose = () => {
    closed = true;
  };
  await transport.start();
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { input, transport, written, received, notes, closed: () => closed, settle };
}

describe('McpStdioTransport', () => {
  it('answers what it cannot read and delivers the lines around it, one message a line', async () => {
    const t = await open(64);
    t.input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n\r\n{oops\n["x"]\n');
    t.input.write(`{"jsonrpc":"2.0","method":"x","params":{"pad":"${'y'.repeat(100)}`);
    t.input.write('"},"id":"long"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await t.settle();
    expect(t.received.map((m) => ('id' in m ? m.id : undefined))).toEqual([1, 2]);
    expect(t.written).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' },
      },
      {
        jsonrpc: '2.0',
        id: 'long',
        error: { code: -32600, message: expect.stringMatching(/longer than 64 bytes/) },
      },
    ]);
    expect(t.notes).toHaveLength(3);
    expect(t.closed()).toBe(false);
  });

  it('at the end of the input waits for each request to be answered or cancelled, and fails its own requests', async () => {
    const t = await open();
    await t.transport.send({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} });
    t.input.write(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n{"jsonrpc":"2.0","id":2,"method":"tools/call"}\n',
    );
    t.input.end('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}');
    await t.settle();
    // The question to the client can no longer be answered: it fails as on a closed connection.
    expect(t.received.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 0,
      error: { code: -32000, message: 'the client closed its input' },
    });
    await expect(
      t.transport.send({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: {} }),
    ).rejects.toThrow(/closed its input/);
    // Request 2 was cancelled (no answer is due); request 1 still runs.
    expect(t.closed()).toBe(false);
    await t.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(t.closed()).toBe(true);
    expect(t.written.at(-1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('closes at once when the input is destroyed', async () => {
    const t = await open();
    t.input.write('{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n');
    await t.settle();
    t.input.destroy();
    await t.settle();
    expect(t.closed()).toBe(true);
  });
});
