import { textWidth } from '@birdie/terminal/text-width';
import { describe, expect, it } from 'vitest';
import { statusLine } from './status.js';

const plain = (_format: unknown, text: string) => text;
const input = {
  agent: 'reviewer',
  vendor: 'openai',
  model: 'gpt-4o-mini-2024-07-18',
  sessionId: '2026-12-06_12',
  contextTokens: 12_345,
  contextWindow: 128_000,
  inputTokens: 98_765,
  outputTokens: 4_321,
};

describe('statusLine', () => {
  it('is whole where it fits (and where the width is unknown: not a terminal)', () => {
    const whole =
      'agent: reviewer │ openai · gpt-4o-mini-2024-07-18 │ session: 2026-12-06_12 │ ctx: 12345 tok (10%) │ spent: ↑98765 ↓4321 tok';
    expect(statusLine(input, plain)).toBe(whole);
    expect(statusLine(input, plain, 200)).toBe(whole);
  });

  it('sheds its labels, then the session, the tokens spent, the agent and the context, and always fits', () => {
    expect(statusLine(input, plain, 110)).toBe(
      'reviewer │ openai · gpt-4o-mini-2024-07-18 │ 2026-12-06_12 │ ctx 12345 (10%) │ ↑98765 ↓4321',
    );
    expect(statusLine(input, plain, 80)).toBe(
      'reviewer │ openai · gpt-4o-mini-2024-07-18 │ ctx 12345 (10%) │ ↑98765 ↓4321',
    );
    expect(statusLine(input, plain, 62)).toBe('reviewer │ openai · gpt-4o-mini-2024-07-18 │ ctx 12345 (10%)');
    expect(statusLine(input, plain, 50)).toBe('openai · gpt-4o-mini-2024-07-18 │ ctx 12345 (10%)');
    expect(statusLine(input, plain, 40)).toBe('openai · gpt-4o-mini-2024-07-18');
    expect(statusLine(input, plain, 20)).toBe('openai · gpt-4o-mi…');
    for (let columns = 2; columns <= 130; columns++)
      expect(textWidth(statusLine(input, plain, columns))).toBeLessThan(columns);
  });

  it('leaves out the agent part and the percentage when there is none', () => {
    const { agent: _agent, ...noAgent } = input;
    expect(statusLine({ ...noAgent, contextWindow: 0 }, plain, 100)).toBe(
      'openai · gpt-4o-mini-2024-07-18 │ session: 2026-12-06_12 │ ctx: 12345 tok │ spent: ↑98765 ↓4321 tok',
    );
    expect(statusLine({ ...noAgent, contextWindow: 0 }, plain, 80)).toBe(
      'openai · gpt-4o-mini-2024-07-18 │ 2026-12-06_12 │ ctx 12345 │ ↑98765 ↓4321',
    );
  });
});
