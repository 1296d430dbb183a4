import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { archivePlan, liveOffset, type ThreadValues, wholeHistory } from './thread-archive.js';
import type { CompactionRecord } from './types.js';

const human = (id: string) => new HumanMessage({ id, content: id });
const ai = (id: string) => new AIMessage({ id, content: id });
const record = (upTo: string, messages: number): CompactionRecord => ({
  upTo,
  messages,
  summary: 's',
  skills: [],
  trigger: 'auto',
  tokensBefore: 0,
  tokensAfter: 0,
  model: 'm',
  at: '2026-12-05T00:00:00.000Z',
});
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => m.id);

describe('archivePlan', () => {
  const messages = [human('h1'), ai('a1'), human('h2'), ai('a2'), human('h3'), ai('a3')];

  it('keeps the boundary message and what follows, counting the rest', () => {
    const plan = archivePlan({ messages, compactions: [record('a2', 4)] }, 'cp-1', 'now');
    expect(ids(plan!.kept)).toEqual(['a2', 'h3', 'a3']);
    expect(plan!.record).toEqual({ checkpointId: 'cp-1', upTo: 'a2', offset: 3, at: 'now' });
  });

  it('leaves a thread whose latest request the summary covers, or whose boundary is archived already', () => {
    expect(archivePlan({ messages, compactions: [record('h3', 5)] }, 'cp', 'now')).toBeUndefined();
    expect(archivePlan({ messages, compactions: [record('a3', 6)] }, 'cp', 'now')).toBeUndefined();
    const archived = { checkpointId: 'cp-0', upTo: 'a2', offset: 3, at: 'then' };
    expect(
      archivePlan({ messages, compactions: [record('a2', 4)], archives: [archived] }, 'cp', 'now'),
    ).toBeUndefined();
    expect(archivePlan({ messages, compactions: [] }, 'cp', 'now')).toBeUndefined();
    expect(archivePlan({ messages, compactions: [record('gone', 4)] }, 'cp', 'now')).toBeUndefined();
  });

  it('adds the offset of an earlier reset', () => {
    const live = [ai('a2'), human('h3'), ai('a3'), human('h4'), ai('a4')];
    const earlier = { checkpointId: 'cp-0', upTo: 'a2', offset: 3, at: 'then' };
    const plan = archivePlan(
      { messages: live, compactions: [record('a2', 4), record('a3', 6)], archives: [earlier] },
      'cp-1',
      'now',
    );
    expect(plan!.record.offset).toBe(5);
    expect(ids(plan!.kept)).toEqual(['a3', 'h4', 'a4']);
  });
});

describe('wholeHistory', () => {
  it('joins the archived parts read from their checkpoints, each boundary message once', async () => {
    const checkpoints: Record<string, ThreadValues> = {
      'cp-0': { messages: [human('h1'), ai('a1'), human('h2'), ai('a2'), human('h3')] },
      'cp-1': {
        messages: [ai('a2'), human('h3'), ai('a3'), human('h4'), ai('a4')],
        archives: [{ checkpointId: 'cp-0', upTo: 'a2', offset: 3, at: '' }],
      },
    };
    const values: ThreadValues = {
      messages: [ai('a3'), human('h4'), ai('a4'), human('h5')],
      archives: [
        { checkpointId: 'cp-0', upTo: 'a2', offset: 3, at: '' },
        { checkpointId: 'cp-1', upTo: 'a3', offset: 5, at: '' },
      ],
    };
    const read = async (id: string) => checkpoints[id]!;
    expect(ids(await wholeHistory(values, read))).toEqual([
      'h1',
      'a1',
      'h2',
      'a2',
      'h3',
      'a3',
      'h4',
      'a4',
      'h5',
    ]);
    expect(liveOffset(values)).toBe(5);
  });

  it('takes a channel that does not start with the archived boundary as the whole history', async () => {
    const values: ThreadValues = {
      messages: [human('h1'), ai('a1')],
      archives: [{ checkpointId: 'cp-0', upTo: 'a0', offset: 3, at: '' }],
    };
    expect(liveOffset(values)).toBe(0);
    expect(ids(await wholeHistory(values, () => Promise.reject(new Error('not read'))))).toEqual([
      'h1',
      'a1',
    ]);
  });
});
