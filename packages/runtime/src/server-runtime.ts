import type { ApprovalMode } from '@birdie/graph';
import { messageJson } from '@birdie/graph/event-json';
import type { RegistrySnapshot } from '@birdie/registry';
import { ApiError, type ServeRuntime, type TurnLimits, type WorkspaceOptions } from '@birdie/server';
import type { Flags } from './flags.js';
import { historyOf } from './history.js';
import type { RuntimeIo } from './io.js';
import { operatorPolicy } from './operator-policy.js';
import { approvalMode, openRuntime, type Runtime } from './runtime.js';
import { type ServeIsolation, serveIsolation } from './serve-isolation.js';
import { turnLimits } from './serve-limits.js';
import { removeSessionDir } from './session-dir.js';
import { createSession } from './session-start.js';
import { applySkillFlags } from './skill-flags.js';
import { sessionBusyCause } from './store-failure.js';
import { executeTurn } from './turn.js';

/**
 * The CLI's runtime as `@birdie/server` drives it: sessions through the store, turns through `executeTurn` (the one
 * turn path of `birdie run` and the REPL: lease, run log, tool journal, session files). A turn that needs approval
 * ends with its pending requests; the decisions come back in a later request, possibly to another worker.
 * What sessions may use is the operator's policy (`serve.skills`, `serve.agents`, `skills.disable`): the runtime's
 * skill policy holds it as its ceiling on every turn; here a request asking for more is refused with a 403.
 */
export function serveRuntime(rt: Runtime, approval: ApprovalMode): ServeRuntime {
  const { store } = rt;
  const operator = operatorPolicy(rt.config.settings);
  /** The loaded skill of this name, or `invalid-request` naming the nearest one. */
  const skillNamed = (snapshot: RegistrySnapshot, name: string) => {
    const skill = snapshot.getSkill(name);
    if (skill) return skill;
    const [near] = snapshot.suggest(name, 1);
    throw new ApiError('invalid-request', `no skill "${name}"${near ? ` (did you mean "${near}"?)` : ''}`);
  };
  /** The name of a skill API sessions may switch on, or `skill-not-allowed` saying which setting refuses it. */
  const enableable = (snapshot: RegistrySnapshot, name: string) => {
    const skill = skillNamed(snapshot, name);
    const refusal = operator.skillRefusal(skill, snapshot);
    if (refusal)
      throw new ApiError('skill-not-allowed', `${refusal}; GET /v1/skills lists those you may enable`);
    return skill.name;
  };
  return {
    store,
    provider: `${rt.provider.config.vendor}/${rt.provider.config.model}`,

    async createSession(userId, request) {
      const snapshot = rt.registry.current();
      const enable = (request.enable ?? []).map((name) => enableable(snapshot, name));
      if (request.agent !== undefined) {
        if (!snapshot.getAgent(request.agent))
          throw new ApiError('invalid-request', `no agent "${request.agent}"`);
        const refusal = operator.agentRefusal(request.agent);
        if (refusal) throw new ApiError('agent-not-allowed', refusal);
      }
      // The server's settings (skills.enable / skills.disable) and the request's list over them, within the ceiling.
      // Each token holder's sessions are numbered among their own (`alice~2026-11-29_1`).
      const session = await createSession(rt, {
        userId,
        perUser: true,
        flags: { enable, disable: [] },
        ...(request.agent !== undefined ? { agent: request.agent } : {}),
        ...(request.title !== undefined ? { title: request.title } : {}),
      });
      // Every turn reads the grants again: a long-running server keeps none of its sessions' between requests.
      rt.forgetGrants(session.id);
      return session;
    },

    async skills() {
      return operator.listing(rt.registry.current(), approval);
    },

    async agents() {
      return rt.registry
        .current()
        .agents.filter((agent) => operator.agentRefusal(agent.name) === undefined)
        .map((agent) => ({
          name: agent.name,
          description: agent.description,
          ...(agent.model !== undefined ? { model: agent.model } : {}),
          ...(agent.skills ? { skills: [...agent.skills] } : {}),
          ...(agent.subagents ? { subagents: [...agent.subagents] } : {}),
          ...(agent.handoffs ? { handoffs: [...agent.handoffs] } : {}),
        }));
    },

    async setSkills(session, change) {
      const snapshot = rt.registry.current();
      // Every name checked before anything changes; switching off only narrows, so the policy never refuses it.
      const enable = change.enable.map((name) => enableable(snapshot, name));
      const disable = change.disable.map((name) => skillNamed(snapshot, name).name);
      // The grants as another worker may have left them, changed through the policy (which saves them).
      try {
        await rt.loadGrants(session.id, session.userId);
        await applySkillFlags(rt, session, { enable, disable });
      } finally {
        rt.forgetGrants(session.id);
      }
      const grants = await store.grants.get(session.id, session.userId);
      return { enabled: grants.enabled, disabled: grants.disabled };
    },

    async history(session) {
      const [{ messages }, grants] = await Promise.all([
        historyOf(rt.agent, session.id),
        store.grants.get(session.id, session.userId),
      ]);
      return {
        messages: messages.map((m) => messageJson(m as never)),
        grants: { enabled: grants.enabled, disabled: grants.disabled },
      };
    },

    async pendingApprovals(session) {
      return (await rt.agent.getState(session.id, { recent: true })).pendingApprovals;
    },

    async deleteSession(session) {
      await store.sessions.delete(session.id, session.userId);
      await removeSessionDir(rt.io.env, session.id);
    },

    async runTurn(session, input, handlers) {
      // The server maps the store's failures itself (`session-busy` → 409): it gets the store's error, as documented.
      const result = await executeTurn(rt, session, input, {
        approval,
        // Memory follows the sessions running now, not every one ever served: the grants are read when the turn
        // starts and forgotten before its lease is released (a refused turn never held them).
        forgetGrants: true,
        // The one who approves is a token holder, not the operator whose machine runs it: `never` never covers these.
        askRawCommands: true,
        signal: handlers.signal,
        waitMs: 0,
        // The user's workspace: every tool's working folder and the root file tools are confined to.
        ...(handlers.workspace !== undefined ? { cwd: handlers.workspace } : {}),
        handlers: {
          onLeased: handlers.onLeased,
          onEvent: handlers.onEvent,
          // Never decided here: the turn ends and the user answers through the API.
          decide: async () => undefined,
          // MCP servers' requests go to the API client (`mcp-request` events) and wait for its answer.
          ...(handlers.mcp ? { mcp: handlers.mcp } : {}),
        },
      }).catch((error: unknown) => {
        throw sessionBusyCause(error);
      });
      return {
        status: result.status,
        inputTokens: result.inputTokens,
        outputTokens: result.outputTokens,
        ...(result.error !== undefined ? { error: result.error } : {}),
        ...(result.errorCode !== undefined ? { errorCode: result.errorCode } : {}),
        ...(result.pending ? { pending: result.pending } : {}),
      };
    },
  };
}

/** Everything `createServer` needs from a runtime opened for a team server, and the runtime itself. */
export interface ServeSetup<I extends RuntimeIo = RuntimeIo> {
  rt: Runtime<I>;
  /** The approval mode of API sessions (`--approval`, else the `approval` setting). */
  approval: ApprovalMode;
  /** Where users' tools run: a workspace per user (or session), the shell tools sandboxed. */
  isolation: ServeIsolation;
  /** `createServer`'s `runtime`. */
  runtime: ServeRuntime;
  /** `createServer`'s `workspaces`. */
  workspaces: WorkspaceOptions;
  /** `createServer`'s `limits`: the settings' per-user turn limits, counted in the store (every worker together). */
  limits: TurnLimits;
}

/**
 * Opens a runtime the way `birdie serve` runs it: the operator's policy (`serve.skills`, `serve.agents`,
 * `skills.disable`) as the ceiling of every session and its approval rules as the only ones, then the isolation of API
 * sessions applied to this process. `opened` sees the runtime before the isolation is checked (to report its skill
 * problems first). Close `rt` when done; a failure while setting up closes it.
 */
export async function openServeRuntime<I extends RuntimeIo>(
  io: I,
  flags: Flags,
  hooks: { opened?(rt: Runtime<I>): void } = {},
): Promise<ServeSetup<I>> {
  approvalMode(flags); // a bad --approval fails before anything loads
  const rt = await openRuntime(io, flags, {
    ceiling: (config) => operatorPolicy(config.settings).ceiling,
    rules: (config) => operatorPolicy(config.settings).rules,
  });
  // An API user's task: this server (or another worker on its database) runs it, and the API cancels it.
  rt.scheduledTaskNote = (id) =>
    `This server runs it; \`DELETE /v1/tasks/${id}\` (the web app's Tasks screen) or cancel_task stops it.`;
  try {
    hooks.opened?.(rt);
    const policy = operatorPolicy(rt.config.settings);
    const snapshot = rt.registry.current();
    const isolation = await serveIsolation(
      io,
      flags,
      rt.config.settings,
      snapshot,
      (skill) => policy.skillRefusal(skill, snapshot) === undefined,
    );
    const mode = approvalMode(flags, rt.config.settings.approval);
    return {
      rt,
      approval: mode,
      isolation,
      runtime: serveRuntime(rt, mode),
      workspaces: isolation.workspaces,
      limits: turnLimits(rt.config.settings.serve.limits),
    };
  } catch (error) {
    await rt.close();
    throw error;
  }
}

export { turnLimits } from './serve-limits.js';
