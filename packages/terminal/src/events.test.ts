import { describe, expect, it } from 'vitest';
import type { Output } from './output.js';
import { EventPrinter } from './events.js';

function sink(): Output & { text: string } {
  const out = {
    text: '',
    write(chunk: string) {
      out.text += chunk;
      return true;
    },
  };
  return out as unknown as Output & { text: string };
}

describe('EventPrinter', () => {
  it("writes the session agent's text as the answer, not a subagent's (the REPL and birdie run)", () => {
    const answer = sink();
    const info = sink();
    const printer = new EventPrinter({ answer, info, style: (_s, t) => t, mode: () => 'full' });
    printer.onEvent({ type: 'token', text: 'WORKER-NOTES', agent: ['boss', 'worker'] });
    printer.onEvent({ type: 'token', text: 'FINAL-ANSWER', agent: ['boss'] });
    printer.onEvent({ type: 'token', text: ' and more', agent: ['helper'] });
    expect(answer.text).toBe('FINAL-ANSWER and more');
  });

  it('names the call above each result when calls run side by side and finish in another order', () => {
    const screen = sink();
    const printer = new EventPrinter({
      answer: screen,
      info: screen,
      style: (_s, t) => t,
      mode: () => 'full',
    });
    const end = (id: string, output: string) =>
      printer.onEvent({
        type: 'tool-end',
        id,
        name: 'shout',
        ok: true,
        output,
        truncated: false,
        durationMs: 5,
      });
    printer.onEvent({ type: 'tool-start', id: 'a', name: 'shout', skill: 'echoer', args: { text: 'one' } });
    printer.onEvent({ type: 'tool-start', id: 'b', name: 'shout', skill: 'echoer', args: { text: 'two' } });
    end('b', 'TWO\n');
    end('a', 'ONE\n');
    expect(screen.text).toBe(
      [
        '⚙ shout (echoer) {"text":"one"}',
        '⚙ shout (echoer) {"text":"two"}',
        '↳ shout {"text":"two"}',
        '│ TWO',
        '└ ✓ shout · 1 line · 5 ms',
        '↳ shout {"text":"one"}',
        '│ ONE',
        '└ ✓ shout · 1 line · 5 ms',
        '',
      ].join('\n'),
    );
  });

  it('a single call keeps its result right under its header, with no repeat', () => {
    const screen = sink();
    const printer = new EventPrinter({
      answer: screen,
      info: screen,
      style: (_s, t) => t,
      mode: () => 'full',
    });
    printer.onEvent({ type: 'tool-start', id: 'a', name: 'shout', args: { text: 'one' } });
    printer.onEvent({
      type: 'tool-end',
      id: 'a',
      name: 'shout',
      ok: true,
      output: 'ONE',
      truncated: false,
      durationMs: 5,
    });
    expect(screen.text).toBe('⚙ shout {"text":"one"}\n│ ONE\n└ ✓ shout · 1 line · 5 ms\n');
  });
});
