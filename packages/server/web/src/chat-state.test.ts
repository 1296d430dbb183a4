import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  type ChatState,
  emptyChat,
  itemsOfHistory,
  mergeItems,
  untilLastPrompt,
} from './chat-state.js';
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

  // Reported: a link whose URL was dropped rendered as `<a href="" target="_blank">`, which opened the app itself in a
  // new tab; a remote image rendered as a broken image and a CSP error in the console, every time the chat was opened.
  it('shows a link whose URL was dropped as its text, and an image as a link to it (none loaded)', () => {
    const html = renderMarkdown(
      '[click me](javascript:alert(1)) ![remote](https://example.com/x.png) ![bad](javascript:x)',
    );
    expect(html).not.toContain('href=""');
    expect(html).toContain('click me');
    expect(html).not.toContain('<img');
    expect(html).toContain('href="https://example.com/x.png"');
    expect(html).toMatch(/>image: remote<\/a>/);
    expect(html).toContain('image: bad');
    expect(html).not.toContain('javascript');
  });

  it('renders GFM tables and fenced code with its language', () => {
    const html = renderMarkdown('| a | b |\n| - | - |\n| 1 | 2 |\n\n```js\nx\n```');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('<code class="language-js">');
  });
});

describe('applyEvent', () => {
  // Reported: a call the user rejected (or one of an unknown tool) ends with `tool-end` and no `tool-start`; the live
  // chat dropped it, and only a reload showed it, failed.
  it('shows a call that ended without starting (rejected, unknown tool) as failed, with the arguments it was asked with', () => {
    const request = {
      id: 'c2',
      digest: 'd',
      tool: 'write_file',
      args: { path: 'b.txt' },
      description: 'Write b.txt',
      reason: 'file-change',
    };
    const s = fold([
      { type: 'approval-request', requests: [request] },
      {
        type: 'tool-end',
        id: 'c2',
        name: 'write_file',
        ok: false,
        output: 'The user rejected this call.',
        truncated: false,
        durationMs: 0,
      },
      {
        type: 'tool-end',
        id: 'c3',
        name: 'nonexistent_tool',
        ok: false,
        output: 'Error: tool "nonexistent_tool" is not available',
        truncated: false,
        durationMs: 0,
      },
    ]);
    expect(s.items).toMatchObject([
      {
        kind: 'tool',
        id: 'c2',
        name: 'write_file',
        args: { path: 'b.txt' },
        ok: false,
        output: 'The user rejected this call.',
      },
      { kind: 'tool', id: 'c3', name: 'nonexistent_tool', args: {}, ok: false },
    ]);
  });

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

describe('mergeItems (the history read again while another client runs a turn)', () => {
  const call = { id: 'c1', name: 'run_bash', args: { command: 'ls' } };
  const history = [
    { role: 'human' as const, content: 'asked here' },
    { role: 'ai' as const, content: 'answered here' },
  ];

  it('keeps what this page showed of its own turn (same objects and keys), adds what is new', () => {
    // This page's turn: its prompt, its streamed answer, a notice of how it went.
    const shown = fold(
      [
        { type: 'token', text: 'answered here' },
        { type: 'message', message: { role: 'ai', content: 'answered here' } },
        { type: 'error', error: { code: 'x', message: 'a notice' } },
      ],
      { ...emptyChat(), items: [{ kind: 'user', key: 'u0', text: 'asked here' }] },
    ).items;
    const merged = mergeItems(
      shown,
      itemsOfHistory([
        ...history,
        { role: 'human', content: 'asked from the CLI' },
        { role: 'ai', content: '', tool_calls: [call] },
      ]),
    );
    expect(merged.slice(0, 3)).toEqual(shown);
    for (const [i, item] of shown.entries()) expect(merged[i]).toBe(item);
    expect(merged.slice(3).map((i) => i.kind)).toEqual(['user', 'tool']);
    expect(new Set(merged.map((i) => i.key)).size).toBe(merged.length);
  });

  it('a call whose outcome was saved since keeps its key; an unchanged history changes nothing', () => {
    const before = itemsOfHistory([...history, { role: 'ai', content: '', tool_calls: [call] }]);
    const after = itemsOfHistory([
      ...history,
      { role: 'ai', content: '', tool_calls: [call] },
      { role: 'tool', content: 'LISTING', tool_call_id: 'c1' },
    ]);
    const merged = mergeItems(before, after);
    expect(merged[2]).toMatchObject({ kind: 'tool', key: before[2]!.key, output: 'LISTING', ok: true });
    expect(
      mergeItems(before, itemsOfHistory([...history, { role: 'ai', content: '', tool_calls: [call] }])),
    ).toEqual(before);
  });

  it('a history that differs from what is shown is shown from where it differs, with keys not used twice', () => {
    const shown: ChatState['items'] = [
      { kind: 'user', key: 'h1', text: 'one' },
      { kind: 'assistant', key: 'h0', text: 'two', final: true },
    ];
    const merged = mergeItems(shown, [
      { kind: 'user', key: 'h0', text: 'one' },
      { kind: 'user', key: 'h1', text: 'other' },
    ]);
    expect(merged.map((i) => i.kind === 'user' && i.text)).toEqual(['one', 'other']);
    expect(merged[0]).toBe(shown[0]);
    expect(new Set(merged.map((i) => i.key)).size).toBe(2);
  });
});
