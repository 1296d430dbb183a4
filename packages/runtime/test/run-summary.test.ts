import { describe, expect, it } from 'vitest';
import { runFilterFlags, toolCallsText } from '../src/run-summary.js';

describe("a run's summary", () => {
  it('marks failed calls and calls never reported back, with subagents’ calls under their task call', () => {
    const calls = [
      { name: 'read_file', status: 'ok' },
      { name: 'web_search', status: 'error' },
      {
        name: 'task',
        status: 'ok',
        subagent: [
          { name: 'web_search', status: 'ok' },
          { name: 'run_bash', status: 'started' },
          { name: 'write_file', status: 'ok', resultUnknown: true },
        ],
      },
    ] as never;
    expect(toolCallsText(calls)).toBe('read_file web_search✗ task(web_search run_bash? write_file?)');
    expect(toolCallsText([])).toBe('');
  });

  it('takes the run-log filters given as flags, and nothing else', () => {
    expect(runFilterFlags({ agent: 'digest', since: '1d', user: 'ada', json: true })).toEqual({
      agent: 'digest',
      since: '1d',
    });
    expect(runFilterFlags({})).toEqual({});
  });
});
