import { describe, expect, it } from 'vitest';
import { planFromTodoOutput } from './plan.js';

describe('planFromTodoOutput', () => {
  it('reads the todo skill’s rendering: done steps completed, the next open one in progress', () => {
    const output = [
      'Plan: 1 of 3 steps done',
      '[x] 1. Read package.json — it uses pnpm — and vitest',
      '[ ] 2. Run the tests — all of them',
      '[ ] 3. Fix the failing import',
      'Next: step 2 — Run the tests — all of them',
    ].join('\n');
    expect(planFromTodoOutput(output)).toEqual([
      { content: 'Read package.json', priority: 'medium', status: 'completed' },
      { content: 'Run the tests — all of them', priority: 'medium', status: 'in_progress' },
      { content: 'Fix the failing import', priority: 'medium', status: 'pending' },
    ]);
  });

  it('has no plan in an error or an empty session', () => {
    expect(planFromTodoOutput('There is no plan in this session yet.')).toBeUndefined();
    expect(planFromTodoOutput('Error (call-failed): …')).toBeUndefined();
  });
});
