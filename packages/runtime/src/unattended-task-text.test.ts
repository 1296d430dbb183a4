import { StoreError } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { storeFailure } from './store-failure.js';
import { taskErrorText, taskFailureText } from './unattended-loop.js';

// A task's record is its user's to read (`GET /v1/tasks`): a run stopped by a taken-over or busy session is said
// without the process and the machine holding it (reported: "…taken over by process 4242 on build-7…").
describe("a task's recorded failure", () => {
  const result = (errorCode: string, error: string) => ({
    status: 'error' as const,
    inputTokens: 0,
    outputTokens: 0,
    contextTokens: 0,
    contextWindow: 0,
    compactions: 0,
    toolCalls: 0,
    rejected: 0,
    runId: 7,
    errorCode,
    error,
  });

  it('names no process or machine for a lost lease or a busy session, and keeps the run to look up', () => {
    const lost = taskFailureText(
      result('lease-lost', 'the lease on session s was taken over by process 4242 on build-7 at T'),
    );
    expect(lost).toBe('error: the lease on session s was taken over by another process at T (run 7)');
    const busy = new StoreError('session-busy', 'session s is in use by process 4242 on build-7 since T', {
      hint: 'wait for that process to finish',
    });
    expect(taskErrorText(busy)).toBe('session s is in use by another process since T');
    // As the turn throws it: the store's failure worded by the runtime (code `busy`, the hint in brackets).
    expect(taskErrorText(storeFailure(busy))).toMatch(
      /^session s is in use by another process since T \(wait for that process to finish[;)]/,
    );
  });

  it('keeps any other failure in its own words', () => {
    expect(taskFailureText(result('model-error', 'the model said no'))).toBe(
      'error: the model said no (run 7)',
    );
    expect(taskErrorText(new Error('boom'))).toBe('boom');
  });
});
