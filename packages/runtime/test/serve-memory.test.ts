import { afterEach, describe, expect, it } from 'vitest';
import { servedRuntime } from './helpers/served-runtime.js';

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

/** A served runtime with the shouter skill (see `servedRuntime`). */
function served(replies: unknown[] = Array.from({ length: 20 }, () => ({ text: 'Done.' }))) {
  return servedRuntime({ replies, skills: { shouter: SKILL }, cleanups });
}

describe('a long-running server keeps nothing per session between turns', () => {
  it("forgets each session's grants once its turn ends, and reads them back from the store at the next", async () => {
    const { rt, call } = await served();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await call('POST', '/v1/sessions', { enable: ['shouter'] });
      expect(created.status).toBe(201);
      const { id } = JSON.parse(created.text) as { id: string };
      ids.push(id);
      const turn = await call('POST', `/v1/sessions/${id}/turns`, { prompt: `hello ${i}` });
      expect(turn.text).toContain('"type":"result","status":"ok"');
    }
    // On main the policy kept every session's grants it ever served (one entry per session, forever).
    expect(Object.keys(rt.policy.toJSON())).toEqual([]);
    // Forgotten here, not lost: the store has them, and the next turn of a session uses them.
    const grants = await rt.store.grants.get(ids[0]!, 'alice');
    expect(grants.enabled).toEqual(['shouter']);
    const shown = await call('GET', `/v1/sessions/${ids[0]}`);
    expect(JSON.parse(shown.text).grants).toEqual({ enabled: ['shouter'], disabled: [] });
    // A change of skills starts from the stored grants and is stored; the policy keeps nothing of it after.
    const changed = await call('PUT', `/v1/sessions/${ids[1]}/skills`, { disable: ['shouter'] });
    expect(JSON.parse(changed.text)).toEqual({ enabled: [], disabled: ['shouter'] });
    expect(Object.keys(rt.policy.toJSON())).toEqual([]);
    const again = await call('POST', `/v1/sessions/${ids[1]}/turns`, { prompt: 'again' });
    expect(again.text).toContain('"type":"result","status":"ok"');
    expect((await rt.store.grants.get(ids[1]!, 'alice')).disabled).toEqual(['shouter']);
    expect(Object.keys(rt.policy.toJSON())).toEqual([]);
  }, 60_000);

  it('a turn refused because the session is busy leaves the running turn its grants', async () => {
    const { rt, call } = await served([
      { text: 'one two three four five six seven eight', token_delay_ms: 150 },
      { text: 'Done.' },
    ]);
    const created = await call('POST', '/v1/sessions', { enable: ['shouter'] });
    const { id } = JSON.parse(created.text) as { id: string };
    const running = call('POST', `/v1/sessions/${id}/turns`, { prompt: 'slow' });
    const held = () => Object.keys(rt.policy.toJSON()).includes(id);
    const until = Date.now() + 30_000;
    while (!held() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(held()).toBe(true);
    const refused = await call('POST', `/v1/sessions/${id}/turns`, { prompt: 'again' });
    expect(refused.status).toBe(409);
    expect(held()).toBe(true);
    expect((await running).text).toContain('"type":"result","status":"ok"');
    expect(held()).toBe(false);
  }, 60_000);

  it("a turn that ends as the next one takes the lease does not take that one's grants with it", async () => {
    const { rt, call } = await served([
      { text: 'Done.' },
      // Slow enough to still run while the first turn's end is looked at, on a loaded machine.
      { text: 'one two three four five six seven eight', token_delay_ms: 500 },
      { text: 'Done.' },
    ]);
    // Titled: the first turn's end releases the lease in the run's last commit (no title still to write).
    const created = await call('POST', '/v1/sessions', { enable: ['shouter'], title: 'race' });
    const { id } = JSON.parse(created.text) as { id: string };
    const held = () => Object.keys(rt.policy.toJSON()).includes(id);
    const runs = async () => rt.store.runs.list({ userId: 'alice' });
    // The moment between the first turn's last commit and its own end: the second turn takes the lease and starts.
    const finish = rt.store.runs.finish.bind(rt.store.runs);
    let second: Promise<{ status: number; text: string }> | undefined;
    rt.store.runs.finish = async (...args) => {
      await finish(...args);
      if (second) return;
      second = call('POST', `/v1/sessions/${id}/turns`, { prompt: 'second' });
      const until = Date.now() + 30_000;
      while ((await runs()).length < 2 && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 10));
    };
    const first = await call('POST', `/v1/sessions/${id}/turns`, { prompt: 'first' });
    expect(first.text).toContain('"type":"result","status":"ok"');
    expect((await runs()).length).toBe(2);
    // The second turn is running: its grants (shouter enabled) are still what the policy holds for the session.
    expect((await runs()).some((r) => r.status === 'running')).toBe(true);
    expect(held()).toBe(true);
    expect(rt.policy.allowedSkills(id).map((s) => s.name)).toContain('shouter');
    expect((await (second as Promise<{ text: string }>)).text).toContain('"type":"result","status":"ok"');
    expect(held()).toBe(false);
  }, 60_000);
});
