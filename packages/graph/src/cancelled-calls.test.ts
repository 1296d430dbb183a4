import { ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { CallsInProgress } from './cancelled-calls.js';

const message = (id: string, content: string, status: 'success' | 'error') =>
  new ToolMessage({ tool_call_id: id, name: 'slow', content, status });

describe('CallsInProgress after a stop', () => {
  it("keeps a call's success that comes while the stop waits for it: what the tool did stands", async () => {
    const calls = new CallsInProgress();
    calls.started('a', 'slow');
    const waiting = calls.stopped(10_000);
    calls.answered('a', message('a', 'done in time', 'success'), true);
    calls.ended('a');
    await waiting;
    const { messages, cancelled } = calls.settle('Stopped because the server shut down');
    expect(cancelled).toEqual([]);
    expect(messages.map((m) => m.content)).toEqual(['done in time']);
  });

  it('answers a failure that comes while the stop waits as cut off by the stop, with its note', async () => {
    const calls = new CallsInProgress();
    calls.started('a', 'slow');
    const waiting = calls.stopped(10_000);
    calls.answered('a', message('a', 'Error (aborted): the call was cancelled', 'error'), false);
    calls.ended('a');
    await waiting;
    const { messages, cancelled } = calls.settle('Stopped because the server shut down');
    expect(cancelled.map((c) => c.id)).toEqual(['a']);
    expect(String(messages[0]!.content)).toMatch(/^\[Stopped because the server shut down while it ran/);
  });

  it('stops waiting once every running call has ended, and at once when none runs', async () => {
    const calls = new CallsInProgress();
    await calls.stopped(60_000);
    calls.started('a', 'slow');
    calls.started('b', 'slow');
    const waiting = calls.stopped(60_000);
    calls.ended('a');
    calls.ended('b');
    await waiting;
    expect(calls.settle().cancelled.map((c) => c.id)).toEqual(['a', 'b']);
  });
});
