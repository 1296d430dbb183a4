import { afterEach, describe, expect, it, vi } from 'vitest';
import { servedRuntime } from './helpers/served-runtime.js';

// A served session's first turn cost about a millisecond of CPU more than its later ones (in-process, 150 sessions of
// five turns): after the turn, the title step read the whole session state back (`agent.getState`, the newest
// checkpoint and its delta history decoded) only to learn whether the model had answered — which the turn had just
// streamed. The state is read now only when the turn cannot tell: it failed, or was cancelled, before or after an answer.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function served(replies: unknown[]) {
  const { rt, call } = await servedRuntime({ replies, cleanups });
  const stateReads = vi.spyOn(rt.agent, 'getState');
  const turn = async (id: string, prompt: string) => {
    const stream = (await call('POST', `/v1/sessions/${id}/turns`, { prompt })).text;
    return JSON.parse(stream.split('event: result\ndata: ')[1]!.split('\n')[0]!) as Record<string, unknown>;
  };
  const newSession = async () =>
    (JSON.parse((await call('POST', '/v1/sessions', {})).text) as { id: string }).id;
  return { rt, turn, newSession, stateReads };
}

describe("a served session's first turn", () => {
  it('titles an answered session from its prompt without reading its state back', async () => {
    const { rt, turn, newSession, stateReads } = await served([{ text: 'Hello there.' }, { text: 'Again.' }]);
    const id = await newSession();
    const first = await turn(id, 'plan the  move\nto Lisbon');
    expect(first).toMatchObject({ status: 'ok' });
    expect((await rt.store.sessions.get(id, 'alice'))?.title).toBe('plan the move to Lisbon');
    expect(stateReads).not.toHaveBeenCalled();
    // The next turn keeps the title (and reads nothing either).
    expect(await turn(id, 'and then?')).toMatchObject({ status: 'ok' });
    expect((await rt.store.sessions.get(id, 'alice'))?.title).toBe('plan the move to Lisbon');
    expect(stateReads).not.toHaveBeenCalled();
  }, 60_000);

  it('leaves a session whose model failed before answering untitled, asking its state', async () => {
    const { rt, turn, newSession, stateReads } = await served([
      { error: { status: 400, message: 'bad request' } },
      { text: 'Now it works.' },
    ]);
    const id = await newSession();
    const failed = await turn(id, 'first try');
    expect(failed).toMatchObject({ status: 'error' });
    expect((await rt.store.sessions.get(id, 'alice'))?.title).toBeUndefined();
    // A failed turn cannot tell from its events whether an earlier answer is stored: the state says.
    expect(stateReads).toHaveBeenCalledTimes(1);
    // The first answered turn titles it, from its own prompt.
    expect(await turn(id, 'second try')).toMatchObject({ status: 'ok' });
    expect((await rt.store.sessions.get(id, 'alice'))?.title).toBe('second try');
  }, 60_000);
});
