import { describe, expect, it } from 'vitest';
import { formatArgs, lineCount, SHORT_LIMIT, toolOutputView } from './tool-output.js';

describe('tool output modes', () => {
  const long = 'x'.repeat(SHORT_LIMIT + 250);

  it('full shows everything', () => {
    expect(toolOutputView(long, 'full')).toEqual({ body: long, note: '1 line' });
  });

  it('short shows the first 1,000 characters and how many remain', () => {
    const view = toolOutputView(long, 'short');
    expect(view.body).toHaveLength(SHORT_LIMIT);
    expect(view.note).toBe('1 line, … 250 more characters');
    expect(toolOutputView('a\nb\n', 'short')).toEqual({ body: 'a\nb\n', note: '2 lines' });
  });

  it('off shows only the line count', () => {
    expect(toolOutputView('a\nb\nc', 'off')).toEqual({ body: null, note: '3 lines' });
    expect(lineCount('')).toBe(0);
  });

  it('cuts huge arguments', () => {
    expect(formatArgs({ a: 'y'.repeat(500) })).toHaveLength(201);
  });
});
