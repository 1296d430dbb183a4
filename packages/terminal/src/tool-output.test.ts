import { describe, expect, it } from 'vitest';
import { formatArgs, lineCount, SHORT_LINE_CHARS, toolOutputView } from './tool-output.js';

describe('tool output modes', () => {
  const long = 'x'.repeat(1250);

  it('full shows everything', () => {
    expect(toolOutputView(long, 'full')).toEqual({ body: long, note: '1 line' });
  });

  it('short shows a few lines, each cut to a screen line, and how many lines remain', () => {
    const many = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join('\n');
    const view = toolOutputView(`${many}\n`, 'short');
    expect(view.body).toBe('line 1\nline 2\nline 3\nline 4\nline 5\n');
    expect(view.note).toBe('300 lines, … 295 more lines');
    const wide = toolOutputView(long, 'short');
    expect(wide.body).toBe(`${'x'.repeat(SHORT_LINE_CHARS)}…`);
    expect(wide.note).toBe('1 line');
    expect(toolOutputView('a\nb\n', 'short')).toEqual({ body: 'a\nb\n', note: '2 lines' });
    expect(toolOutputView('1\n2\n3\n4\n5\n6', 'short').note).toBe('6 lines, … 1 more line');
  });

  it('off shows only the line count', () => {
    expect(toolOutputView('a\nb\nc', 'off')).toEqual({ body: null, note: '3 lines' });
    expect(lineCount('')).toBe(0);
  });

  it('cuts huge arguments', () => {
    expect(formatArgs({ a: 'y'.repeat(500) })).toHaveLength(201);
  });
});
