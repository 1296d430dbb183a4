import { describe, expect, it } from 'vitest';
import { blocksOf, type StreamEvent, useServer } from './helpers.js';

// Issue 33: an MCP server's sampling and elicitation requests during an API turn reach the client as `mcp-request`
// events, and its answers (`POST /v1/sessions/{id}/mcp-requests/{requestId}`) reach the waiting request.
describe('MCP requests over the API', () => {
  const h = useServer();
  const newSession = async (token: string) =>
    ((await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string }).id;

  /** Reads the turn's stream to its end, calling `on` for each event as it arrives (answers are sent from there). */
  async function follow(
    response: Response,
    on: (event: StreamEvent) => Promise<void>,
  ): Promise<StreamEvent[]> {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let handled = 0;
    const all: StreamEvent[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const seen = blocksOf(text.slice(0, text.lastIndexOf('\n\n') + 2)).flatMap((b) =>
        b.event ? [b.event] : [],
      );
      for (const event of seen.slice(handled)) {
        all.push(event);
        await on(event);
      }
      handled = seen.length;
    }
    return all;
  }

  it('sampling and elicitation wait for the client: approved, refused, a form filled', async () => {
    const heard: unknown[] = [];
    h.runtime.script = async ({ handlers }) => {
      const request = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 9 };
      heard.push(await handlers.mcp!.approveSampling!({ server: 'everything', request } as never));
      heard.push(
        await handlers.mcp!.approveSampling!({ server: 'everything', request, answer: 'wings' } as never),
      );
      heard.push(
        await handlers.mcp!.elicit!(
          {
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          },
          { server: 'everything' },
        ),
      );
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 1, outputTokens: 1 };
    };
    const token = await h.token();
    const id = await newSession(token);
    const turn = await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'go' } });
    expect(turn.status).toBe(200);
    const asked: StreamEvent[] = [];
    const events = await follow(turn, async (event) => {
      if (event.type !== 'mcp-request') return;
      asked.push(event);
      const body =
        event.kind === 'sampling'
          ? { approve: true }
          : event.kind === 'sampling-answer'
            ? { approve: false }
            : { action: 'accept', content: { name: 'Ada' } };
      const answered = await h.request(`/v1/sessions/${id}/mcp-requests/${String(event.id)}`, {
        token,
        json: body,
      });
      expect(answered.status).toBe(200);
      // An answered request cannot be answered again.
      const again = await h.request(`/v1/sessions/${id}/mcp-requests/${String(event.id)}`, {
        token,
        json: body,
      });
      expect(again.status).toBe(404);
    });
    expect(asked.map((e) => [e.kind, e.server])).toEqual([
      ['sampling', 'everything'],
      ['sampling-answer', 'everything'],
      ['elicitation', 'everything'],
    ]);
    expect(asked[1]?.answer).toBe('wings');
    expect(asked[2]?.request).toMatchObject({ message: 'Your name?' });
    expect(heard).toEqual([true, false, { action: 'accept', content: { name: 'Ada' } }]);
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
  });

  it("another user cannot answer a session's request, and an unknown id is 404", async () => {
    let waiting!: (id: string) => void;
    const requestId = new Promise<string>((resolve) => {
      waiting = resolve;
    });
    h.runtime.script = async ({ handlers }) => {
      const result = await handlers.mcp!.elicit!(
        { message: 'x', requestedSchema: { type: 'object', properties: {} } },
        {
          server: 's',
        },
      );
      handlers.onEvent({ type: 'token', text: JSON.stringify(result) });
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    const token = await h.token('alice');
    const other = await h.token('bob');
    const id = await newSession(token);
    const turn = await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'go' } });
    const done = follow(turn, async (event) => {
      if (event.type === 'mcp-request') waiting(String(event.id));
    });
    const rid = await requestId;
    expect(
      (
        await h.request(`/v1/sessions/${id}/mcp-requests/${rid}`, {
          token: other,
          json: { action: 'accept' },
        })
      ).status,
    ).toBe(404);
    expect(
      (await h.request(`/v1/sessions/${id}/mcp-requests/nope`, { token, json: { action: 'accept' } })).status,
    ).toBe(404);
    expect(
      (await h.request(`/v1/sessions/${id}/mcp-requests/${rid}`, { token, json: { action: 'decline' } }))
        .status,
    ).toBe(200);
    const events = await done;
    expect(events.filter((e) => e.type === 'token').map((e) => e.text)).toEqual(['{"action":"decline"}']);
  });
});
