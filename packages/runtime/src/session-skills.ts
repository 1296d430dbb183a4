import type { Runtime } from './runtime.js';

type Problem = Awaited<ReturnType<Runtime['registry']['reload']>>[number];

/** A loaded skill as one session sees it: whether it may use it, and whether the session or the default decided. */
export interface SessionSkill {
  name: string;
  kind: string;
  tools: string[];
  on: boolean;
  setBy: 'session' | 'default';
}

/** Every loaded skill, in the registry's order, with whether this session may use it (`/skill list`). */
export function sessionSkills(rt: Runtime, sessionId: string): SessionSkill[] {
  const allowed = new Set(rt.policy.allowedSkills(sessionId).map((k) => k.name));
  const grants = rt.policy.grants(sessionId);
  const explicit = new Set([...grants.enabled, ...grants.disabled].map((n) => n.toLowerCase()));
  return rt.registry.current().skills.map((k) => ({
    name: k.name,
    kind: k.kind,
    tools: k.tools.map((t) => t.name),
    on: allowed.has(k.name),
    setBy: explicit.has(k.name.toLowerCase()) ? 'session' : 'default',
  }));
}

/**
 * Turns a skill on or off for a session, from its next turn; the policy saves the grant with the session. For a
 * name no skill has: `missing`, with the closest names.
 */
export async function setSessionSkill(
  rt: Runtime,
  sessionId: string,
  name: string,
  on: boolean,
): Promise<{ skill: string } | { missing: string; near: string[] }> {
  const set = await setSessionSkills(rt, sessionId, [name], on);
  return 'missing' in set ? set.missing[0]! : { skill: set.skills[0]! };
}

/**
 * Turns several skills on or off for a session, all or none: a name that matches no skill changes nothing and comes
 * back with the closest names, so a typo among them never leaves the session half changed. The grants are saved once.
 */
export async function setSessionSkills(
  rt: Runtime,
  sessionId: string,
  names: readonly string[],
  on: boolean,
): Promise<{ skills: string[] } | { missing: Array<{ missing: string; near: string[] }> }> {
  const snapshot = rt.registry.current();
  const found = names.map((name) => ({ name, skill: snapshot.getSkill(name) }));
  const missing = found
    .filter((f) => !f.skill)
    .map((f) => ({ missing: f.name, near: snapshot.suggest(f.name) }));
  if (missing.length > 0) return { missing };
  const skills = [...new Set(found.map((f) => f.skill!.name))];
  for (const skill of skills) {
    if (on) rt.policy.enable(sessionId, skill);
    else rt.policy.disable(sessionId, skill);
  }
  await rt.saveGrants(sessionId);
  return { skills };
}

/** Reads every skills folder again; the count of skills loaded now, and the errors (fatal problems) found. */
export async function reloadSkills(rt: Runtime): Promise<{ skills: number; errors: Problem[] }> {
  const messages = await rt.registry.reload();
  return { skills: rt.registry.current().skills.length, errors: messages.filter((m) => m.fatal === true) };
}
