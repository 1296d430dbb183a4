import { describe, expect, it } from 'vitest';
import { LIVE_TAIL_CHARS, UpdateTranslator } from './updates.js';

const output = (id: string, text: string) =>
  ({ type: 'tool-output', id, name: 'run', stream: 'stdout', text }) as const;

describe('UpdateTranslator: live tool output', () => {
  it("sends a running call's output so far as its content, then the result replaces it", () => {
    const t = new UpdateTranslator('/work');
    t.translate({ type: 'tool-start', id: 'c1', name: 'run', args: {} });
    expect(t.translate(output('c1', 'line 1\n'))).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'in_progress',
        content: [{ type: 'content', content: { type: 'text', text: 'line 1\n' } }],
      },
    ]);
    // ACP replaces a call's content with each update: the second carries both lines.
    expect(t.translate(output('c1', 'line 2\n'))[0]).toMatchObject({
      content: [{ type: 'content', content: { type: 'text', text: 'line 1\nline 2\n' } }],
    });
    const [end] = t.translate({
      type: 'tool-end',
      id: 'c1',
      name: 'run',
      ok: true,
      output: 'line 1\nline 2\n',
      truncated: false,
      durationMs: 5,
    });
    expect(end).toMatchObject({ status: 'completed', rawOutput: { output: 'line 1\nline 2\n' } });
  });

  it('keeps only the last lines of a long-running call', () => {
    const t = new UpdateTranslator('/work');
    let last: unknown;
    for (let i = 0; i < 2000; i++) last = t.translate(output('c1', `line ${i}\n`))[0];
    const text = (last as { content: Array<{ content: { text: string } }> }).content[0]!.content.text;
    expect(text.length).toBeLessThanOrEqual(LIVE_TAIL_CHARS);
    expect(text.startsWith('line ')).toBe(true);
    expect(text.endsWith('line 1999\n')).toBe(true);
  });
});

describe('UpdateTranslator: approval rules', () => {
  it('says which rule, from which source, let a call run or refused it', () => {
    const t = new UpdateTranslator('/work');
    const [allowed] = t.translate({
      type: 'tool-rule',
      id: 'c1',
      name: 'run_bash',
      effect: 'allow',
      pattern: 'run_bash(git status)',
      source: { kind: 'user', name: '/home/me/.birdie/config.json' },
    });
    expect(allowed).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      title: 'run_bash (allowed by the rule run_bash(git status), user /home/me/.birdie/config.json)',
      _meta: {
        birdie: {
          rule: {
            effect: 'allow',
            pattern: 'run_bash(git status)',
            source: { kind: 'user', name: '/home/me/.birdie/config.json' },
          },
        },
      },
    });
    const [denied] = t.translate({
      type: 'tool-rule',
      id: 'c2',
      name: 'run_bash',
      effect: 'deny',
      pattern: 'run_bash(rm *)',
      source: { kind: 'operator' },
    });
    expect(denied).toMatchObject({
      toolCallId: 'c2',
      title: 'run_bash (refused by the rule run_bash(rm *), operator)',
    });
  });
});
