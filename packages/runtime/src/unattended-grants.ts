import { randomUUID } from 'node:crypto';
import type { SessionGrants } from '@birdie/registry';
import type { ScheduledTask } from '@birdie/store';
import type { Runtime } from './runtime.js';
import { settingSkills } from './skill-flags.js';

// An unattended run (`birdie start`) gets only the skills the user granted: the settings' `skills.enable` for an
// agent's trigger, the scheduling session's grants for a task. An agent file never grants itself a skill (a project's
// agent must not be able to turn on the shell), so an agent whose skills are off would run without their tools, and
// nobody is there to see it or to enable them. Such a run is refused before its model call, and `birdie start` says
// so for each agent when it starts: a run without its tools is a wrong run, and a green one would hide it.

/** The skills an agent names that are off where it would run, and the tools they would have given it. */
export interface SkillsOff {
  agent: string;
  skills: string[];
  tools: string[];
}

type Rt = Pick<Runtime, 'registry' | 'policy'>;

/** The agent's loaded skills that the policy does not allow under `key`'s grants (a session id); none: undefined. */
export function skillsOffFor(rt: Rt, key: string, agentName: string): SkillsOff | undefined {
  const snapshot = rt.registry.current();
  const spec = snapshot.getAgent(agentName);
  if (!spec?.skills?.length) return undefined;
  const allowed = new Set(rt.policy.allowedSkills(key, snapshot).map((s) => s.name.toLowerCase()));
  const off = spec.skills.flatMap((name) => {
    const skill = snapshot.getSkill(name);
    return skill && !allowed.has(skill.name.toLowerCase()) ? [skill] : [];
  });
  if (off.length === 0) return undefined;
  // An agent with a `tools:` list gets only those of its skills' tools.
  const named = spec.tools ? new Set(spec.tools) : undefined;
  const tools = off.flatMap((skill) => skill.tools.map((t) => t.name)).filter((t) => !named || named.has(t));
  return { agent: spec.name, skills: off.map((s) => s.name), tools: [...new Set(tools)] };
}

/** The same, under grants no session has yet: the policy is asked about a key of its own, forgotten at once. */
export function skillsOffUnder(rt: Rt, grants: SessionGrants, agentName: string): SkillsOff | undefined {
  const key = `unattended-check:${randomUUID()}`;
  rt.policy.setGrants(key, grants);
  try {
    return skillsOffFor(rt, key, agentName);
  } finally {
    rt.policy.forget(key);
  }
}

/** The grants a new session of `birdie start` starts with: the settings' `skills.enable` / `skills.disable`. */
export function settingGrants(rt: Pick<Runtime, 'registry' | 'config'>): SessionGrants {
  const { skills } = settingSkills(rt);
  return { enabled: skills.enable, disabled: skills.disable };
}

/**
 * A task's grants as its runs get them: those of the session that scheduled it, less what the settings'
 * `skills.disable` turns off now (a skill the user disabled later must not go on running in their tasks).
 */
export function taskGrants(rt: Pick<Runtime, 'registry' | 'config'>, grants: SessionGrants): SessionGrants {
  const { disable } = settingSkills(rt).skills;
  if (disable.length === 0) return grants;
  const off = new Set(disable.map((name) => name.toLowerCase()));
  return {
    ...grants,
    enabled: grants.enabled.filter((name) => !off.has(name.toLowerCase())),
    disabled: [...new Set([...grants.disabled, ...disable])],
  };
}

const listed = (names: readonly string[]) => names.join(', ');

/**
 * What an unattended run of the agent lacks, that it is refused, and how to enable the skills: in the settings for an
 * agent's trigger (and a task without grants), in the session that schedules it for a task with grants.
 */
export function skillsOffMessage(off: SkillsOff, task?: ScheduledTask): string {
  const many = off.skills.length > 1;
  const skills = `skill${many ? 's' : ''} ${listed(off.skills)}`;
  const lacks = off.tools.length
    ? `, so it lacks the tool${off.tools.length > 1 ? 's' : ''} ${listed(off.tools)}`
    : '';
  const them = many ? 'them' : 'it';
  if (task?.grants)
    return `task ${task.id} (agent ${off.agent}): its ${skills} ${many ? 'were' : 'was'} not enabled in the session that scheduled it${lacks}; its runs are refused (nobody is there to enable ${them}). Schedule it again from a session where ${many ? 'they are' : 'it is'} enabled (${off.skills.map((s) => `/skill enable ${s}`).join(', ')})`;
  const prefix = task ? `task ${task.id} (agent ${off.agent})` : `agent ${off.agent}`;
  return `${prefix}: its ${skills} ${many ? 'are' : 'is'} not enabled for birdie start${lacks}; its runs are refused (nobody is there to enable ${them}). Enable ${them} for every session with: ${off.skills.map((s) => `birdie config add skills.enable ${s}`).join('; ')} (or skills.enable in your settings)`;
}

/**
 * What `birdie start` says of a task the model scheduled before tasks kept their session's grants: it runs with the
 * settings' skills, which may leave its tools off. Undefined for a task with grants, or one not scheduled by a run.
 */
export function taskGrantsNotice(task: ScheduledTask): string | undefined {
  if (task.grants || task.createdByRun === undefined) return undefined;
  return `task ${task.id} was scheduled before tasks kept the skills of the session that scheduled them: it runs with the skills your settings enable (skills.enable), which may leave its tools off. Schedule it again to keep that session's skills, or enable them with birdie config add skills.enable NAME`;
}

/** `birdie start`'s checks before the first run: each triggered agent's and each task's skills that are off. */
export function unattendedNotices(
  rt: Pick<Runtime, 'registry' | 'policy' | 'config'>,
  agents: readonly string[],
  tasks: readonly ScheduledTask[],
): Array<{ name: string; skills: string[]; message: string }> {
  const settings = settingGrants(rt);
  const notices: Array<{ name: string; skills: string[]; message: string }> = [];
  for (const agent of agents) {
    const off = skillsOffUnder(rt, settings, agent);
    if (off) notices.push({ name: agent, skills: off.skills, message: skillsOffMessage(off) });
  }
  for (const task of tasks) {
    const name = `task ${task.id}`;
    const grants = task.grants ? taskGrants(rt, task.grants) : settings;
    const off = task.agent ? skillsOffUnder(rt, grants, task.agent) : undefined;
    if (off) notices.push({ name, skills: off.skills, message: skillsOffMessage(off, task) });
    const legacy = taskGrantsNotice(task);
    if (legacy) notices.push({ name, skills: [], message: legacy });
  }
  return notices;
}
