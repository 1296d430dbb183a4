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
  const snapshot = rt.registry.current();
  const found = snapshot.getSkill(name);
  if (!found) return { missing: name, near: snapshot.suggest(name) };
  if (on) rt.policy.enable(sessionId, found.name);
  else rt.policy.disable(sessionId, found.name);
  await rt.saveGrants(sessionId);
  return { skill: found.name };
}

/** Reads every skills folder again; the count of skills loaded now, and the errors (fatal problems) found. */
export async function reloadSkills(rt: Runtime): Promise<{ skills: number; errors: Problem[] }> {
  const messages = await rt.registry.reload();
  return { skills: rt.registry.current().skills.length, errors: messages.filter((m) => m.fatal === true) };
}
