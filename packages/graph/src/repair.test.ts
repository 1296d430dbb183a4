import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { messagesDeltaReducer } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import {
  FAILED_TOOL_RESULT,
  FINISHED_TOOL_RESULT,
  NOT_STARTED_TOOL_RESULT,
  repairDanglingToolCalls,
  STARTED_TOOL_RESULT,
  UNANSWERED_APPROVAL_RESULT,
  UNKNOWN_TOOL_RESULT,
} from './repair.js';

const ai = (id: string, calls: string[]) =>
  new AIMessage({ id, content: '', tool_calls: calls.map((c) => ({ id: c, name: 'run', args: {} })) });

describe('repairDanglingToolCalls', () => {
  it('leaves a complete history untouched', () => {
    const history = [
      new HumanMessage({ id: 'h1', content: 'x' }),
      ai('a1', ['c1']),
      new ToolMessage({ id: 't1', tool_call_id: 'c1', content: 'ok' }),
    ];
    const repair = repairDanglingToolCalls(history);
    expect(repair.update).toEqual([]);
    expect(repair.messages).toBe(history);
  });

  it('answers unanswered calls with error placeholders right after their AIMessage', () => {
    const history = [
      new HumanMessage({ id: 'h1', content: 'x' }),
      ai('a1', ['c1', 'c2']),
      new ToolMessage({ id: 't1', tool_call_id: 'c1', content: 'ok' }),
    ];
    const repair = repairDanglingToolCalls(history);
    expect(repair.repaired).toEqual(['c2']);
    const placeholder = repair.messages[2] as ToolMessage;
    expect(placeholder.tool_call_id).toBe('c2');
    expect(placeholder.status).toBe('error');
    expect(placeholder.content).toBe(UNKNOWN_TOOL_RESULT);
  });

  it('produces an update that heals the stored list in place, even with later messages', () => {
    const history = [
      new HumanMessage({ id: 'h1', content: 'first' }),
      ai('a1', ['c1']),
      new HumanMessage({ id: 'h2', content: 'second' }),
    ];
    const repair = repairDanglingToolCalls(history);
    const healed = messagesDeltaReducer(history, [repair.update]);
    expect(healed.map((m) => m.id ?? '')).toEqual(repair.messages.map((m) => m.id ?? ''));
    expect(healed.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'human']);
    expect((healed[2] as ToolMessage).tool_call_id).toBe('c1');
  });

  it('also answers calls whose arguments could not be parsed', () => {
    const broken = new AIMessage({
      id: 'a1',
      content: '',
      invalid_tool_calls: [
        { id: 'bad', name: 'run', args: '{oops', error: 'bad json', type: 'invalid_tool_call' },
      ],
    });
    const repair = repairDanglingToolCalls([broken]);
    expect(repair.repaired).toEqual(['bad']);
  });

  it('says what the journal knows: never started, started, finished (its effect happened) or failed', () => {
    const history = [new HumanMessage({ id: 'h1', content: 'x' }), ai('a1', ['n', 's', 'ok', 'bad'])];
    const repair = repairDanglingToolCalls(
      history,
      new Set(['s', 'ok', 'bad']),
      new Map([
        ['ok', true],
        ['bad', false],
      ]),
    );
    expect(repair.messages.slice(2).map((m) => [(m as ToolMessage).tool_call_id, m.content])).toEqual([
      ['n', NOT_STARTED_TOOL_RESULT],
      ['s', STARTED_TOOL_RESULT],
      ['ok', FINISHED_TOOL_RESULT],
      ['bad', FAILED_TOOL_RESULT],
    ]);
  });

  it('a call left waiting for approval never started, with a journal or without one', () => {
    const history = [new HumanMessage({ id: 'h1', content: 'x' }), ai('a1', ['asked', 'other'])];
    const answers = (repair: ReturnType<typeof repairDanglingToolCalls>) =>
      repair.messages.slice(2).map((m) => [(m as ToolMessage).tool_call_id, m.content]);
    expect(answers(repairDanglingToolCalls(history, undefined, undefined, new Set(['asked'])))).toEqual([
      ['asked', UNANSWERED_APPROVAL_RESULT],
      ['other', UNKNOWN_TOOL_RESULT],
    ]);
    expect(answers(repairDanglingToolCalls(history, new Set(), new Map(), new Set(['asked'])))).toEqual([
      ['asked', UNANSWERED_APPROVAL_RESULT],
      ['other', NOT_STARTED_TOOL_RESULT],
    ]);
    // Answered on another worker after this one asked, which started it: what the journal saw wins.
    const elsewhere = repairDanglingToolCalls(
      history,
      new Set(['asked', 'other']),
      new Map([['other', true]]),
      new Set(['asked', 'other']),
    );
    expect(answers(elsewhere)).toEqual([
      ['asked', STARTED_TOOL_RESULT],
      ['other', FINISHED_TOOL_RESULT],
    ]);
  });
});
