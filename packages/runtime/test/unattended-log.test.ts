import { describe, expect, it } from 'vitest';
import { describeTrigger, SKIP_REASONS, unattendedRecord } from '../src/unattended-log.js';

const due = new Date('2026-11-29T09:00:00Z');
const firing = { id: 'digest', label: 'schedule 0 9 * * *', dueAt: due, late: false } as never;

describe('what the unattended loop logs', () => {
  it('writes a trigger in words, each part it has', () => {
    expect(
      describeTrigger({ id: 'a', schedule: '0 9 * * *', timezone: 'Europe/Paris', watch: ['src', 'docs'] }),
    ).toBe('schedule 0 9 * * * (Europe/Paris); watch src, docs');
    expect(describeTrigger({ id: 'b', every: 60 })).toBe('every 1m');
    expect(describeTrigger({ id: 'c', at: due })).toBe('at 2026-11-29T09:00:00.000Z');
  });

  it('makes each event one record naming the event and the agent', () => {
    expect(unattendedRecord({ type: 'run-start', name: 'digest', firing, sessionId: 's1' })).toEqual({
      event: 'run-start',
      agent: 'digest',
      trigger: 'schedule 0 9 * * *',
      due: '2026-11-29T09:00:00.000Z',
      late: false,
      session: 's1',
    });
    const run = {
      sessionId: 's1',
      result: { runId: 7, status: 'rejected', inputTokens: 10, outputTokens: 2 },
      refused: ['run_bash'],
      rules: [],
    } as never;
    expect(unattendedRecord({ type: 'run-end', name: 'digest', firing, run, durationMs: 1200 })).toEqual({
      event: 'run-end',
      agent: 'digest',
      trigger: 'schedule 0 9 * * *',
      run: 7,
      session: 's1',
      status: 'rejected',
      durationMs: 1200,
      inputTokens: 10,
      outputTokens: 2,
      refused: ['run_bash'],
    });
    expect(
      unattendedRecord({
        type: 'skipped',
        id: 'task-3',
        name: 'task 3',
        label: 'every 60s',
        dueAt: due,
        reason: 'busy',
      }),
    ).toEqual({
      event: 'skipped',
      agent: 'task 3',
      trigger: 'every 60s',
      due: '2026-11-29T09:00:00.000Z',
      reason: 'busy',
    });
    expect(SKIP_REASONS.busy).toBe('another birdie start is running it');
    expect(unattendedRecord({ type: 'error', error: 'bad file' })).toEqual({
      event: 'error',
      error: 'bad file',
    });
    expect(
      unattendedRecord({ type: 'reloaded', ids: ['digest', 'task-3'], names: ['digest', 'task 3'] }),
    ).toEqual({
      event: 'reloaded',
      agents: ['digest', 'task 3'],
    });
  });
});
