import { describe, expect, it } from 'vitest';
import { replayBelongs, unfinished } from './replay.js';
import type { Message, TurnEvent } from './types.js';

const human = (id: string, content = id): Message => ({ role: 'human', id, content });
const ai = (id: string, content = id): Message => ({ role: 'ai', id, content });
const saved = (id: string): TurnEvent => ({ type: 'message', message: { role: 'ai', id, content: id } });
const start: TurnEvent = { type: 'session', id: 's', user: 'u', provider: 'p' };
const end: TurnEvent = { type: 'result', status: 'error', session: 's', inputTokens: 0, outputTokens: 0 };

describe('unfinished', () => {
  it('is a history that stops on a prompt or on tool steps, not on an answer', () => {
    const call: Message = { role: 'ai', content: '', tool_calls: [{ id: 'c', name: 't', args: {} }] };
    expect(unfinished([])).toBe(false);
    expect(unfinished([human('h')])).toBe(true);
    expect(unfinished([human('h'), call])).toBe(true);
    expect(unfinished([human('h'), call, { role: 'tool', content: 'x', tool_call_id: 'c' }])).toBe(true);
    expect(unfinished([human('h'), ai('a')])).toBe(false);
  });
});

describe('replayBelongs', () => {
  it('is the last prompt’s turn when a message it saved follows that prompt, older when one precedes it', () => {
    const history = [human('h1'), ai('a1'), human('h2'), ai('a2')];
    expect(replayBelongs(history, [start, saved('a2')], false)).toBe(true);
    expect(replayBelongs(history, [start, saved('a1')], false)).toBe(false);
  });

  it('waits while its events say nothing: messages the history does not have, or none yet', () => {
    const history = [human('h1'), ai('a1'), human('h2')];
    expect(replayBelongs(history, [start, { type: 'token', text: 'x' }], false)).toBeUndefined();
    expect(replayBelongs(history, [start, saved('not-saved-yet')], false)).toBeUndefined();
  });

  it('an ended turn that saved nothing the history has is the last prompt’s unless another turn saved what follows it', () => {
    expect(replayBelongs([ai('a0'), human('h1')], [start, end], true)).toBe(true);
    expect(replayBelongs([human('h1'), human('h2'), ai('cli')], [start, end], true)).toBe(false);
    // No events at all (none kept): nothing to show.
    expect(replayBelongs([human('h1')], [], true)).toBe(false);
  });

  it('a turn whose recorded prompt is an earlier one of the history is older, whatever it saved', () => {
    const asked = (prompt: string): TurnEvent => ({ ...start, prompt });
    // An API turn that saved nothing, then a CLI prompt never answered.
    expect(
      replayBelongs([human('h1', 'first'), human('h2', 'from the CLI')], [asked('first'), end], true),
    ).toBe(false);
    // Decided at its first event, before anything else came.
    expect(replayBelongs([human('h1', 'first'), human('h2', 'from the CLI')], [asked('first')], false)).toBe(
      false,
    );
    // Its own prompt, the last: as its ids say (nothing saved, nothing after: its own).
    expect(replayBelongs([human('h1', 'first'), human('h2', 'again')], [asked('again'), end], true)).toBe(
      true,
    );
    // The same words asked twice: the ids decide, as without a prompt.
    expect(
      replayBelongs([human('h1', 'go'), ai('a1'), human('h2', 'go')], [asked('go'), saved('a1')], false),
    ).toBe(false);
    // A prompt the history does not have yet (not saved when it was read): the ids decide.
    expect(
      replayBelongs([human('h1', 'first')], [asked('new'), { type: 'token', text: 'x' }], false),
    ).toBeUndefined();
    // A record without the prompt (older rows, an approval's continuation): as before.
    expect(replayBelongs([human('h1', 'first'), human('h2', 'from the CLI')], [start, end], true)).toBe(true);
  });

  it('a history without a prompt takes any turn', () => {
    expect(replayBelongs([], [start], false)).toBe(true);
  });
});
