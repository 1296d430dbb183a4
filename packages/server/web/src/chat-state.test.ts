import { describe, expect, it } from 'vitest';
import { applyEvent, type ChatState, emptyChat, itemsOfHistory, untilLastPrompt } from './chat-state.js';
import { renderMarkdown } from './markdown.js';
import type { TurnEvent } from './types.js';

const fold = (events: TurnEvent[], start: ChatState = emptyChat()) =>
  events.reduce((s, e) => applyEvent(s, e, 1000), start);

describe('renderMarkdown (untrusted text)', () => {
  it('escapes raw HTML and drops javascript: and data: URLs', () => {
    const html = renderMarkdown(
      '<img src=x onerror=alert(1)> [a](javascript:alert(1)) [b](data:text/html,x) ![c](javascript:x) [d](https://e.org)',
    );
    expect(html).not.toMatch(/<img src="x"|<img src=x/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toMatch(/(href|src)="(javascript|data):/i);
    expect(html).toContain('href="https://e.org"');
  });

  it('renders GFM tables and fenced code with its language', () => {
    const html = renderMarkdown('| a | b |\n| - | - |\n| 1 | 2 |\n\n```js\nx\n```');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('<code class="language-js">');
  });
});

describe('applyEvent', () => {
  it('streams tokens into one answer, which the message event completes', () => {
    const s = fold([
      { type: 'token', text: 'Hel' },
      { type: 'token', text: 'lo' },
      { type: 'message', message: { role: 'ai', content: 'Hello' } },
    ]);
    expect(s.items).toEqual([{ kind: 'assistant', key: 'e1', text: 'Hello', final: true }]);
  });

  it("nests a subagent's tool calls and answer under the running task call, with output and duration", () => {
    const s = fold([
      { type: 'tool-start', id: 't1', name: 'task', args: { agent: 'researcher' } },
      { type: 'tool-start', id: 'c1', name: 'web_search', args: { q: 'x' }, agent: ['main', 'researcher'] },
      { type: 'tool-output', id: 'c1', name: 'web_search', stream: 'stdout', text: 'partial' },
      { type: 'token', text: 'found', agent: ['main', 'researcher'] },
      {
        type: 'tool-end',
        id: 'c1',
        name: 'web_search',
        ok: true,
        output: 'all',
        truncated: false,
        durationMs: 5,
      },
      { type: 'tool-end', id: 't1', name: 'task', ok: true, output: 'done', truncated: false, durationMs: 9 },
      { type: 'token', text: 'Summary' },
    ]);
    const [task, answer] = s.items;
    expect(task).toMatchObject({ kind: 'tool', name: 'task', ok: true, durationMs: 9 });
    expect(task?.kind === 'tool' && task.children).toMatchObject([
      { kind: 'tool', name: 'web_search', output: 'all', ok: true, durationMs: 5 },
      { kind: 'assistant', text: 'found' },
    ]);
    expect(answer).toMatchObject({ kind: 'assistant', text: 'Summary' });
  });

  it('an approval request stops the turn and keeps the pending calls; usage adds up with the context fill', () => {
    const request = {
      id: 'c1',
      digest: 'd',
      tool: 'run',
      args: {},
      description: 'Run',
      reason: 'raw-command',
    };
    const s = fold([
      { type: 'usage', inputTokens: 10, outputTokens: 2, context: { tokens: 50, window: 100 } },
      { type: 'usage', inputTokens: 5, outputTokens: 1 },
      { type: 'approval-request', requests: [request] },
    ]);
    expect(s.pending).toEqual([request]);
    expect(s.running).toBe(false);
    expect(s.usage).toEqual({ inputTokens: 15, outputTokens: 3, context: { tokens: 50, window: 100 } });
  });
});

describe('history', () => {
  it('fills tool calls from their tool messages; a running turn replays after its prompt', () => {
    const messages = [
      { role: 'human' as const, content: 'hi' },
      { role: 'ai' as const, content: '', tool_calls: [{ id: 'c1', name: 'shout', args: { text: 'x' } }] },
      { role: 'tool' as const, content: 'X', tool_call_id: 'c1', status: 'error' },
      { role: 'ai' as const, content: 'Done.' },
    ];
    expect(itemsOfHistory(messages)).toMatchObject([
      { kind: 'user', text: 'hi' },
      { kind: 'tool', name: 'shout', output: 'X', ok: false },
      { kind: 'assistant', text: 'Done.' },
    ]);
    expect(untilLastPrompt(messages)).toEqual([messages[0]]);
  });
});
