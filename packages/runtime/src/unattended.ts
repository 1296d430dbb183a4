import { dirname, sep } from 'node:path';
import type { ApprovalMode, ApprovalRequest } from '@birdie/graph';
import type { AgentDefinition } from '@birdie/registry';
import type { Firing, Trigger } from '@birdie/scheduler';
import type { ScheduledTask, Session } from '@birdie/store';
import type { Runtime } from './runtime.js';
import { createSession } from './session-start.js';
import { oneLine } from './session-titles.js';
import { applySkillFlags, settingSkills } from './skill-flags.js';
import { executeTurn, type TurnResult } from './turn.js';
import { skillsOffFor, skillsOffMessage, taskGrants } from './unattended-grants.js';

const NOBODY = 'refused: birdie start runs unattended and nobody can approve this call';

/**
 * What a triggered run's refused approval says: nobody is there to approve, and what would let the call run. A raw
 * shell command is never pre-approved by the tool's name, only by a command pattern, so naming the tool in `approve`
 * is not the fix for one (and saying so when it is already there would send the user in a circle).
 */
export function unattendedRefusal(
  request: ApprovalRequest,
  approve: readonly string[],
  suggestCommandPattern: (command: string, tool: string) => string | undefined,
): string {
  const command = typeof request.args.command === 'string' ? request.args.command : undefined;
  // A rule asked: only the user can answer it, no `approve` entry lifts an `ask` rule.
  if (request.reason === 'rule' && request.rule) {
    const rule = `\`${request.rule.pattern}\` (${request.rule.source.kind}${request.rule.source.name ? ` ${request.rule.source.name}` : ''})`;
    return request.rule.effect === 'deny'
      ? `${NOBODY}: the command line is too complex to check against the deny rule ${rule}, so it asks before it runs`
      : `${NOBODY}: the ask rule ${rule} asks before it runs`;
  }
  if (request.reason !== 'raw-command' || command === undefined)
    return `${NOBODY}; add the tool to the agent's \`approve\` list to allow it`;
  const suggested = suggestCommandPattern(command, request.tool);
  const example = suggested ? `such as \`${suggested}\`` : 'that names the command';
  if (approve.includes(request.tool))
    return `${NOBODY}: \`${command}\` is a raw shell command; the \`approve\` entry \`${request.tool}\` never pre-approves one: add a command pattern ${example}`;
  // The engine says which allow rules named the tool and what they did not match (the command of the line they missed).
  if (request.ruleMiss)
    return `${NOBODY}: ${request.ruleMiss}; add a command pattern that matches it, ${example}`;
  return `${NOBODY}: \`${command}\` is a raw shell command; add a command pattern ${example} to the agent's \`approve\` list to allow it`;
}

/**
 * The folder an agent's `watch` paths are relative to: the project whose `.birdie/agents` or `.agents/agents` holds
 * the file, else the working folder.
 */
export function projectOf(agentFile: string, cwd: string): string {
  const parts = dirname(agentFile).split(sep);
  const at = parts.findLastIndex(
    (part, i) =>
      (part === '.birdie' || part === '.agents') && parts[i + 1] === 'agents' && i + 2 === parts.length,
  );
  return at > 0 ? parts.slice(0, at).join(sep) : cwd;
}

/** The scheduler's trigger for an agent with trigger fields; undefined for one without. */
export function agentTrigger(agent: AgentDefinition, cwd: string): Trigger | undefined {
  const t = agent.triggers;
  if (!t || (t.schedule === undefined && t.every === undefined && !t.watch?.length)) return undefined;
  return {
    id: agent.name,
    ...(t.schedule !== undefined ? { schedule: t.schedule } : {}),
    ...(t.timezone !== undefined ? { timezone: t.timezone } : {}),
    ...(t.every !== undefined ? { every: t.every } : {}),
    ...(t.watch?.length ? { watch: t.watch, root: projectOf(agent.file, cwd) } : {}),
    ...(t.debounce !== undefined ? { debounce: t.debounce } : {}),
    ...(t.prompt !== undefined ? { prompt: t.prompt } : {}),
    ...(t.overlap !== undefined ? { overlap: t.overlap } : {}),
    ...(t.catchUp !== undefined ? { catchUp: t.catchUp } : {}),
  };
}

/** Trigger ids of tasks: `task-<id>` (agent names cannot hold that shape's meaning: tasks are looked up by it). */
export const TASK_PREFIX = 'task-';

export function taskTrigger(task: ScheduledTask): Trigger {
  return {
    id: `${TASK_PREFIX}${task.id}`,
    prompt: task.prompt,
    ...(task.schedule !== undefined ? { schedule: task.schedule } : {}),
    ...(task.timezone !== undefined ? { timezone: task.timezone } : {}),
    ...(task.every !== undefined ? { every: task.every } : {}),
    ...(task.at !== undefined ? { at: task.at } : {}),
  };
}

export interface TriggeredRun {
  sessionId: string;
  agent?: string;
  result: TurnResult;
  /** Tools refused for lack of approval. */
  refused: string[];
  /** Each call an approval rule decided: the tool, the effect, the rule and its source (`tool-rule` events). */
  rules: RuleDecisionLine[];
  /** Refused before its model call because the agent's skills are off where it runs (see `skillsOffMessage`). */
  skillsOff?: boolean;
}

export interface RuleDecisionLine {
  tool: string;
  effect: 'allow' | 'ask' | 'deny';
  pattern: string;
  source: { kind: string; name?: string };
}

/** The title that marks an agent's kept session (`session: keep`): the one its triggered runs all continue. */
export function keptSessionTitle(agent: string): string {
  return `${agent}: kept session`;
}

/**
 * Where a task's run happens when it is not the process's own user's in the process's folder (`birdie serve` runs its
 * users' tasks): the task's user, the workspace their tools run in, and the server's approval mode.
 */
export interface TaskPlace {
  /** The folder every tool of the run works in and file tools are confined to. */
  cwd: string;
  /** The approval mode of the server's sessions (`--approval`, else the setting). */
  approval: ApprovalMode;
  /**
   * Refuse the run before the model is called, saying why (the task's user is no longer the server's: every API token
   * of theirs was revoked): it is logged `rejected` with this error, and nothing runs.
   */
  refusal?: string;
}

/**
 * The session of one triggered run: for an agent's own trigger with `session: keep`, its kept session (the user's
 * session used last started with that agent under `keptSessionTitle`), made on the first run; otherwise, and for every
 * task (even one naming such an agent: it runs with the grants it kept), a new session per run.
 */
async function triggeredSession(
  rt: Runtime,
  firing: Firing,
  agent: string | undefined,
  task: ScheduledTask | undefined,
  place: TaskPlace | undefined,
): Promise<Session> {
  const definition = agent ? rt.registry.current().agents.find((a) => a.name === agent) : undefined;
  if (agent && !task && definition?.triggers?.session === 'keep') {
    const title = keptSessionTitle(agent);
    const kept = (await rt.store.sessions.list(rt.userId)).find(
      (s) => s.agent === agent && s.title === title,
    );
    if (!kept) return createSession(rt, { title, agent });
    await rt.loadGrants(kept.id);
    await applySettingSkills(rt, kept);
    return kept;
  }
  // One line of at most 200 characters, cut between characters: a watch trigger's label lists the changed paths.
  const title = oneLine(`${agent ?? 'birdie'}: ${firing.label}`, 200);
  // A server's task runs in a session of its user, numbered among their own like their API sessions.
  const session = await createSession(
    rt,
    place && task ? { title, userId: task.userId, perUser: true } : { title },
  );
  if (task?.grants) {
    // The task's run gets the grants of the session that scheduled it, as they were then (the user approved the task
    // there), instead of the settings', less what `skills.disable` turns off now. A grant bound to a skill file that no longer provides the name does not hold.
    await rt.store.grants.set(session.id, session.userId, taskGrants(rt, task.grants));
    await rt.loadGrants(session.id, session.userId);
  }
  return session;
}

/**
 * A kept session's grants as its next run gets them: its own, with the settings' `skills.enable` / `skills.disable`
 * applied over them now, as a new session starts with them. Nobody is there to `/skill enable` in it: the settings are
 * how the user grants an agent's unattended runs (and what `birdie start` tells them to set), so a skill enabled or
 * disabled there after the session was made must reach it, as `skills.disable` reaches a task's runs (`taskGrants`).
 */
async function applySettingSkills(rt: Runtime, kept: Session): Promise<void> {
  const { skills } = settingSkills(rt);
  if (skills.enable.length > 0 || skills.disable.length > 0) await applySkillFlags(rt, kept, skills);
}

/**
 * The run that scheduled `task`, its runs' parent, while it is there: deleting the session that scheduled a task deletes
 * that run, and the task goes on running without a parent.
 */
async function scheduledBy(rt: Runtime, task: ScheduledTask | undefined): Promise<number | undefined> {
  if (task?.createdByRun === undefined) return undefined;
  return (await rt.store.runs.get(task.createdByRun, task.userId)) ? task.createdByRun : undefined;
}

/**
 * One triggered run: a new session of the user (or the agent's kept one: `session: keep`), the agent (or the task's
 * agent), the firing's prompt; calls that need approval run only when the agent pre-approves the tool (the graph
 * applies `approve`), every other one is refused with a tool error and the refusal is in the run's log entry.
 */
export async function runTriggered(
  rt: Runtime,
  firing: Firing,
  opts: {
    agent?: string;
    task?: ScheduledTask;
    /** A server's task: its user's workspace and the server's approval mode (see `TaskPlace`). */
    place?: TaskPlace;
    onStart?(info: { sessionId: string }): void;
  },
): Promise<TriggeredRun> {
  const { place } = opts;
  const parentRunId = await scheduledBy(rt, opts.task);
  const session = await triggeredSession(rt, firing, opts.agent, opts.task, place);
  opts.onStart?.({ sessionId: session.id });
  const agentName = opts.agent ?? opts.task?.agent;
  // Nobody is there to enable the agent's skills that are off: the run is refused (logged, no model call).
  const off = agentName ? skillsOffFor(rt, session.id, agentName) : undefined;
  const refused: string[] = [];
  const reasons: string[] = [];
  const rules: RuleDecisionLine[] = [];
  const approve = rt.registry.current().agents.find((a) => a.name === agentName)?.approve;
  const trigger = opts.task ? `task ${opts.task.id} (${firing.label})` : firing.label;
  const result = await executeTurn(rt, session, firing.prompt, {
    approval: place?.approval ?? rt.config.settings.approval ?? 'ask',
    ...(place
      ? {
          cwd: place.cwd,
          // As on the server's API turns: the one who would approve is the token holder, not the operator, and a
          // long-running server keeps no session's grants once its turn ended.
          askRawCommands: true,
          forgetGrants: true,
        }
      : {}),
    signal: firing.signal,
    waitMs: 0,
    agent: opts.agent ?? null,
    trigger,
    ...(place?.refusal !== undefined
      ? { refusal: place.refusal }
      : off
        ? { refusal: skillsOffMessage(off, opts.task) }
        : {}),
    ...(parentRunId !== undefined ? { parentRunId } : {}),
    // The log says why the run was rejected: nobody could approve, and what would have let each call run.
    beforeLog: (result) => {
      if (refused.length > 0 && !result.error)
        result.error = `${[...new Set(reasons)].join('; ')} (${refused.join(', ')})`;
    },
    handlers: {
      // Which rule let each call run or refused it, for the run's log line.
      onEvent: (event) => {
        if (event.type === 'tool-rule')
          rules.push({
            tool: event.name,
            effect: event.effect,
            pattern: event.pattern,
            source: event.source,
          });
      },
      decide: async (requests) => {
        const { suggestCommandPattern } = await import('@birdie/graph');
        return Object.fromEntries(
          requests.map((request) => {
            const message = unattendedRefusal(request, approve ?? [], suggestCommandPattern);
            refused.push(request.tool);
            reasons.push(message);
            return [request.id, { type: 'reject', message, unasked: true }];
          }),
        );
      },
    },
  });
  return {
    sessionId: session.id,
    ...(opts.agent ? { agent: opts.agent } : {}),
    result,
    refused,
    rules,
    ...(off && place?.refusal === undefined ? { skillsOff: true } : {}),
  };
}
