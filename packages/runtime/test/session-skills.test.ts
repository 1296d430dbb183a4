import { afterEach, describe, expect, it } from 'vitest';
import { rulesInForce } from '../src/session-rules.js';
import { reloadSkills, sessionSkills, setSessionSkill, setSessionSkills } from '../src/session-skills.js';
import { createSession } from '../src/session-start.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const QUIET =
  "---\nname: quiet\ndescription: Off unless enabled.\nenabled_by_default: false\n---\n\n## Tools\n\n### hush\ndescription: Says nothing much.\nentrypoint: bash:printf 'shh\\n'\nschema: { type: object, properties: {} }\n";

describe("a session's skills", () => {
  it('lists each skill with whether the session may use it and who decided, and switches one', async () => {
    const rt = await tempRuntime({ 'skills/quiet/SKILL.md': QUIET }, cleanups);
    const session = await createSession(rt);
    const quiet = () => sessionSkills(rt, session.id).find((k) => k.name === 'quiet');
    expect(quiet()).toEqual({ name: 'quiet', kind: 'tool', tools: ['hush'], on: false, setBy: 'default' });
    expect(await setSessionSkill(rt, session.id, 'QUIET', true)).toEqual({ skill: 'quiet' });
    expect(quiet()).toMatchObject({ on: true, setBy: 'session' });
    // Saved with the session: a fresh read of its grants has it.
    expect((await rt.store.grants.get(session.id, rt.userId)).enabled).toContain('quiet');
    expect(await setSessionSkill(rt, session.id, 'quiet', false)).toEqual({ skill: 'quiet' });
    expect(quiet()).toMatchObject({ on: false, setBy: 'session' });
  });

  it('switches several skills at once, all or none: one unknown name changes nothing', async () => {
    const LOUD = QUIET.replaceAll('quiet', 'loud').replace('### hush', '### shout');
    const rt = await tempRuntime({ 'skills/quiet/SKILL.md': QUIET, 'skills/loud/SKILL.md': LOUD }, cleanups);
    const session = await createSession(rt);
    expect(await setSessionSkills(rt, session.id, ['quiet', 'lod'], true)).toEqual({
      missing: [{ missing: 'lod', near: ['loud'] }],
    });
    expect((await rt.store.grants.get(session.id, rt.userId)).enabled).toEqual([]);
    expect(sessionSkills(rt, session.id).find((k) => k.name === 'quiet')?.on).toBe(false);
    expect(await setSessionSkills(rt, session.id, ['quiet', 'LOUD', 'quiet'], true)).toEqual({
      skills: ['quiet', 'loud'],
    });
    expect((await rt.store.grants.get(session.id, rt.userId)).enabled.sort()).toEqual(['loud', 'quiet']);
  });

  it('names the closest skills for a name none has, and reloads the folders', async () => {
    const rt = await tempRuntime({ 'skills/quiet/SKILL.md': QUIET }, cleanups);
    const session = await createSession(rt);
    expect(await setSessionSkill(rt, session.id, 'qiuet', true)).toEqual({
      missing: 'qiuet',
      near: ['quiet'],
    });
    const reloaded = await reloadSkills(rt);
    expect(reloaded.skills).toBe(rt.registry.current().skills.length);
    expect(reloaded.errors).toEqual([]);
  });

  it('lists the approval rules in force, deny first', async () => {
    const config = JSON.stringify({
      settings: {
        permissions: {
          allow: ['run_bash(npm test *)'],
          deny: ['run_bash(rm *)'],
          ask: ['run_bash(git push *)'],
        },
      },
    });
    const rt = await tempRuntime({ 'config.json': config }, cleanups);
    const session = await createSession(rt);
    const rules = await rulesInForce(rt, session.id);
    expect(rules.map((r) => [r.effect, r.pattern])).toEqual([
      ['deny', 'run_bash(rm *)'],
      ['ask', 'run_bash(git push *)'],
      ['allow', 'run_bash(npm test *)'],
    ]);
  });
});
