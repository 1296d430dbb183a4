import type { AcpTurnOptions } from '@birdie/acp';
import type { AgentEvent } from '@birdie/graph';
import { afterEach, describe, expect, it } from 'vitest';
import { acpRuntime } from '../src/acp-runtime.js';
import { tempRuntime } from './helpers/temp-runtime.js';

// `birdie acp` runs for as long as the editor is open, over many sessions: like `birdie serve`, it keeps nothing of
// a session's grants between its turns (they are read from the store at every turn).

const SKILL = `---
name: shouter
description: Shouts text back in capital letters.
---
## Tools
### shout
description: Print the text in capital letters.
entrypoint: bash:printf '%s\\n' {text} | tr a-z A-Z
schema: { type: object, properties: { text: { type: string } }, required: [text] }
`;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function turnOptions(events: AgentEvent[]): AcpTurnOptions {
  return {
    approval: 'never',
    signal: new AbortController().signal,
    cwd: process.cwd(),
    onEvent: (event) => void events.push(event),
    decide: async () => ({}),
  };
}

describe("the ACP runtime keeps no session's grants between turns", () => {
  it('forgets them after a session is made and after each turn, and reads them back for the next turn', async () => {
    const rt = await tempRuntime({ 'skills/shouter/SKILL.md': SKILL }, cleanups, {}, 'plain-then-shout.json');
    const { runtime, settled } = acpRuntime(rt, {
      info: { name: 'birdie', version: '0.0.0' },
      approval: 'never',
      waitMs: 0,
      flags: { enable: ['shouter'], disable: [] },
      log: () => undefined,
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await runtime.createSession());
    // Three of the four sessions get a turn; the fourth is made and never used (an editor's abandoned tab).
    for (const id of ids.slice(0, 3)) {
      const result = await runtime.runTurn(id, 'hello', turnOptions([]));
      expect(result).toMatchObject({ status: 'ok' });
    }
    await settled();
    // On main the policy held the grants of every session the process had touched, until it exited.
    expect(Object.keys(rt.policy.toJSON())).toEqual([]);
    // Forgotten, not lost: the next turn reads them from the store, and the enabled skill's tool runs.
    expect((await rt.store.grants.get(ids[3]!, rt.userId)).enabled).toEqual(['shouter']);
    const events: AgentEvent[] = [];
    const shouted = await runtime.runTurn(ids[3]!, 'shout it', turnOptions(events));
    expect(shouted.status).toBe('ok');
    const ended = events.find((e) => e.type === 'tool-end');
    expect(ended).toMatchObject({ name: 'shout', ok: true, output: 'HELLO BIRDIE\n' });
    expect(Object.keys(rt.policy.toJSON())).toEqual([]);
  });
});
