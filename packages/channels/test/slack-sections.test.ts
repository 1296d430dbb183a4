import { describe, expect, it } from 'vitest';
import { sectionsOf } from '../src/slack.js';

describe('sectionsOf: mrkdwn in parts Slack takes as section blocks', () => {
  it('keeps a short text whole', () => {
    expect(sectionsOf('*Approval needed*\n```\nx\n```')).toEqual(['*Approval needed*\n```\nx\n```']);
  });

  it('cuts a long code block into parts of at most the limit, each fence closed and opened again, nothing lost', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} ${'x&amp;y'.repeat(10)}`);
    const text = `*Approval needed*\n\`\`\`json\n${lines.join('\n')}\n\`\`\``;
    const parts = sectionsOf(text, 500);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(500);
      expect((part.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    const shown = parts.join('\n').replace(/\n```\n```/g, '');
    for (const line of lines) expect(shown).toContain(line);
  });

  it('cuts a line longer than a part without splitting an entity', () => {
    const line = 'a&amp;'.repeat(300);
    const parts = sectionsOf(line, 200);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(200);
      expect(part).not.toMatch(/&(a|am|amp)?$/);
    }
    expect(parts.join('')).toBe(line);
  });
});
