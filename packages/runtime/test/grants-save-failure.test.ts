import { afterEach, describe, expect, it } from 'vitest';
import { grantsBridge } from '../src/grants-bridge.js';
import { sessionSkills, setSessionSkill } from '../src/session-skills.js';
import { createSession } from '../src/session-start.js';
import { applySkillFlags } from '../src/skill-flags.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const QUIET =
  "---\nname: quiet\ndescription: Off unless enabled.\nenabled_by_default: false\n---\n\n## Tools\n\n### hush\ndescription: Says nothing much.\nentrypoint: bash:printf 'shh\\n'\nschema: { type: object, properties: {} }\n";

async function quietRuntime() {
  const rt = await tempRuntime({ 'skills/quiet/SKILL.md': QUIET }, cleanups);
  const quietIn = (sessionId: string) => sessionSkills(rt, sessionId).find((k) => k.name === 'quiet');
  return { rt, quietIn };
}

describe('a grant the store refuses is not kept in memory', () => {
  it('the store closed: `/skill enable` fails, and the session still has the skill off', async () => {
    const { rt, quietIn } = await quietRuntime();
    const session = await createSession(rt);
    await rt.store.close();
    await expect(setSessionSkill(rt, session.id, 'quiet', true)).rejects.toMatchObject({ code: 'closed' });
    expect(quietIn(session.id)).toMatchObject({ on: false, setBy: 'default' });
    expect(rt.policy.grants(session.id)).toEqual({ enabled: [], disabled: [] });
    expect(rt.policy.isToolAllowed(session.id, 'hush')).toBe(false);
  });

  it('the session removed by another process: the write is refused and the grants are the saved ones again', async () => {
    const { rt, quietIn } = await quietRuntime();
    const session = await createSession(rt);
    expect(await setSessionSkill(rt, session.id, 'quiet', true)).toEqual({ skill: 'quiet' });
    await rt.store.sessions.delete(session.id, rt.userId);
    await expect(setSessionSkill(rt, session.id, 'quiet', false)).rejects.toMatchObject({
      code: 'not-found',
    });
    // What the store held last (enabled), not the refused disable.
    expect(quietIn(session.id)).toMatchObject({ on: true, setBy: 'session' });
    expect(rt.policy.isToolAllowed(session.id, 'hush')).toBe(true);
  });

  it('several changes, one refused: none of them is kept (the session is as the store left it)', async () => {
    const { rt, quietIn } = await quietRuntime();
    const session = await createSession(rt);
    await rt.store.close();
    await expect(
      applySkillFlags(rt, session, { enable: ['quiet'], disable: ['quiet'] }),
    ).rejects.toMatchObject({ code: 'closed' });
    expect(quietIn(session.id)).toMatchObject({ on: false, setBy: 'default' });
  });

  it("a session's failure is reported to that session's save, not to another session saving at the same time", async () => {
    const { rt, quietIn } = await quietRuntime();
    const kept = await createSession(rt);
    const removed = await createSession(rt);
    await rt.store.sessions.delete(removed.id, rt.userId);
    for (const order of [
      [kept, removed],
      [removed, kept],
    ] as const) {
      const results = await Promise.allSettled(order.map((s) => setSessionSkill(rt, s.id, 'quiet', true)));
      const byId = new Map(order.map((s, i) => [s.id, results[i]]));
      expect(byId.get(kept.id)).toMatchObject({ status: 'fulfilled', value: { skill: 'quiet' } });
      expect(byId.get(removed.id)).toMatchObject({ status: 'rejected', reason: { code: 'not-found' } });
      expect(quietIn(kept.id)).toMatchObject({ on: true });
      expect(quietIn(removed.id)).toMatchObject({ on: false });
      // Back to off for the next order; the kept session's save works.
      await setSessionSkill(rt, kept.id, 'quiet', false);
    }
  });
});

describe('the grants bridge: a failed write followed by one that saves', () => {
  it("a save waits for the session's later write: when that one saves, the earlier change is saved and not reported", async () => {
    const rt = await tempRuntime({}, cleanups);
    const session = await createSession(rt);
    // The first write of the store is refused (a lock another process held, say); the next goes to the real store.
    let refused = false;
    const store = {
      ...rt.store,
      grants: {
        ...rt.store.grants,
        set: (...args: Parameters<typeof rt.store.grants.set>) => {
          if (refused) return rt.store.grants.set(...args);
          refused = true;
          return Promise.reject(Object.assign(new Error('database is locked'), { code: 'locked' }));
        },
      },
    } as typeof rt.store;
    const rolledBack: string[] = [];
    const bridge = grantsBridge(store, rt.userId, (id) => rolledBack.push(id));
    await bridge.load(session.id, rt.userId);
    bridge.policyStore.set(session.id, { enabled: ['a'], disabled: [] });
    const first = bridge.flush(session.id);
    // A second change arrives before the first write settles: it carries the first one.
    bridge.policyStore.set(session.id, { enabled: ['a', 'b'], disabled: [] });
    await expect(first).resolves.toBeUndefined();
    expect(rolledBack).toEqual([]);
    expect(await rt.store.grants.get(session.id, rt.userId)).toMatchObject({ enabled: ['a', 'b'] });
    expect(bridge.policyStore.get(session.id)).toMatchObject({ enabled: ['a', 'b'] });
  });
});
