import { describe, expect, it } from 'vitest';
import { formatMs } from '../src/duration-text.js';
import { unattendedSentence } from '../src/unattended-sentence.js';

const due = new Date('2026-11-29T09:00:00Z');
const firing = { id: 'digest', label: 'schedule 0 9 * * *', dueAt: due, late: true } as never;

describe("the unattended loop's events as sentences", () => {
  it('says when a run starts and how it ended, with the rules that decided its calls', () => {
    expect(unattendedSentence({ type: 'run-start', name: 'digest', firing, sessionId: 's1' })).toBe(
      'start digest (schedule 0 9 * * *, late) session s1',
    );
    const run = {
      sessionId: 's1',
      result: { runId: 7, status: 'error', error: 'model failed\nstack', inputTokens: 1, outputTokens: 1 },
      refused: [],
      rules: [
        {
          tool: 'run_bash',
          effect: 'allow',
          pattern: 'run_bash(git status)',
          source: { kind: 'agent', name: 'digest' },
        },
      ],
    } as never;
    expect(
      unattendedSentence({ type: 'run-end', name: 'digest', firing, run, durationMs: 1234 }, (s) => `<${s}>`),
    ).toBe(
      'end digest <error> run 7 in 1.2 s model failed\n  run_bash: allow by the rule run_bash(git status) (agent digest)',
    );
  });

  it('names skipped and queued runs, errors and reloads', () => {
    expect(
      unattendedSentence({
        type: 'skipped',
        id: 'task-3',
        name: 'task 3',
        label: 'every 60s',
        dueAt: due,
        reason: 'claimed',
      }),
    ).toBe('skipped task 3 (every 60s) due 2026-11-29T09:00:00.000Z: another birdie start ran it');
    expect(unattendedSentence({ type: 'queued', id: 'digest', name: 'digest', label: 'every 60s' })).toBe(
      'queued digest (every 60s): its previous run is still active',
    );
    expect(unattendedSentence({ type: 'error', error: 'bad file' })).toBe('reload failed: bad file');
    expect(unattendedSentence({ type: 'error', id: 'task-3', name: 'task 3', error: 'boom' })).toBe(
      'error task 3: boom',
    );
    expect(unattendedSentence({ type: 'reloaded', ids: [], names: [] })).toBe('reloaded: no triggers');
    expect(unattendedSentence({ type: 'reloaded', ids: ['a', 'task-3'], names: ['a', 'task 3'] })).toBe(
      'reloaded: a, task 3',
    );
  });

  it('writes durations in ms below a second, else in seconds', () => {
    expect(formatMs(12.4)).toBe('12 ms');
    expect(formatMs(1500)).toBe('1.5 s');
  });
});
