import type { AcpRuntime } from '@birdie/acp';
import type { ApprovalMode } from '@birdie/graph';
import { skillIdentity } from '@birdie/registry';
import { findSession, type Runtime, staleGrantNotes, waitingLine } from './runtime.js';
import { useSession } from './session-start.js';
import type { SkillFlags } from './skill-flags.js';
import { isStoreErrorLike, sessionBusyCause, storeFailureText } from './store-failure.js';
import { executeTurn } from './turn.js';

export interface AcpRuntimeOptions {
  /** `agentInfo` of the initialize answer (the front end's name and version). */
  info: { name: string; version: string };
  /** The approval mode a session starts in. */
  approval: ApprovalMode;
  /** How long a turn waits for a session another process is using, in ms. */
  waitMs: number;
  /** The agent a session made here starts with (after that, whoever spoke last goes on). */
  agent?: string;
  /** The skills a new session enables and disables beyond the settings. */
  flags?: SkillFlags;
  /** The application's log (stdout carries the protocol, so never stdout). */
  log(line: string): void;
}

/** The `@birdie/acp` port over a runtime, and a promise for the turns still running when the connection ends. */
export interface ReadyAcpRuntime {
  runtime: AcpRuntime;
  /** Settles when every turn started so far has finished (its tools ended, its run log written). */
  settled(): Promise<void>;
}

/**
 * What `serveAcp` drives, over the one turn path (`executeTurn`: lease, run log, tool journal, session files) and the
 * runtime's sessions. A session's approvals live in its thread, bound to the digest of the skill file, and the agent
 * applies them before it asks: a call allowed for the session never reaches the editor's permission prompt, in this
 * process or after a restart, so `sessionGrants` has nothing to seed.
 */
export function acpRuntime(rt: Runtime, options: AcpRuntimeOptions): ReadyAcpRuntime {
  const { log } = options;
  const startsWithAgent = new Set<string>();
  const running = new Set<Promise<unknown>>();
  const runtime: AcpRuntime = {
    info: options.info,
    defaultApproval: options.approval,
    cwd: rt.cwd,
    async createSession() {
      const session = await useSession(rt, undefined, options.flags ? { flags: options.flags } : {});
      // Every turn reads the grants again (under its lease): an editor's process keeps none between turns.
      rt.forgetGrants(session.id);
      if (options.agent !== undefined) startsWithAgent.add(session.id);
      return session.id;
    },
    async hasSession(id) {
      return findSession(rt.store, id, rt.userId).then(
        () => true,
        () => false,
      );
    },
    async history(id) {
      return (await rt.agent.getState(id)).messages;
    },
    async listSessions() {
      return (await rt.store.sessions.list(rt.userId)).map((s) => ({
        id: s.id,
        updatedAt: s.updatedAt,
        ...(s.title !== undefined ? { title: s.title } : {}),
      }));
    },
    async sessionGrants() {
      return [];
    },
    async runTurn(id, text, o) {
      // Opens the session with its grants read from the store (a session loaded after a restart has them too).
      const session = await useSession(rt, id).catch((error: unknown) => {
        throw notStarted(error);
      });
      for (const line of staleGrantNotes(rt, session.id)) log(`birdie: ${line}`);
      const turn = executeTurn(rt, session, text, {
        approval: o.approval,
        signal: o.signal,
        waitMs: options.waitMs,
        cwd: o.cwd,
        // An editor stays open over many sessions: like `birdie serve`, memory follows the turns running now.
        forgetGrants: true,
        ...(startsWithAgent.delete(session.id) && options.agent !== undefined
          ? { agent: options.agent }
          : {}),
        ...(o.files ? { files: o.files } : {}),
        handlers: {
          // ACP ends a prompt with its own stop reason; the turn's closing done is not an update to send.
          onEvent: (event) => {
            if (event.type !== 'done') o.onEvent(event);
          },
          decide: o.decide,
          ...(o.mcp ? { mcp: o.mcp } : {}),
          onWait: (holder, ms) => log(waitingLine(session.id, holder, ms)),
        },
      });
      running.add(turn);
      try {
        const result = await turn.catch((error: unknown) => {
          throw notStarted(error);
        });
        // The ACP runtime speaks the graph's words: a cancelled turn is `aborted` there.
        return { ...result, status: result.status === 'cancelled' ? 'aborted' : result.status };
      } finally {
        running.delete(turn);
      }
    },
    skillIdentity: (skill) => skillIdentity(rt.registry.current(), skill),
    log,
  };
  return {
    runtime,
    async settled() {
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * A turn that could not start as `@birdie/acp` sends it (`data.code` of its error): a store's failure with its stable
 * code (`session-busy` when another process holds the session, `disk-full`, …) and its sentence with what to do,
 * worded for an editor; anything else is `internal`, with its message.
 */
function notStarted(error: unknown): Error & { code: string } {
  const cause = sessionBusyCause(error);
  if (isStoreErrorLike(cause))
    return Object.assign(new Error(storeFailureText(cause, cause.damage?.sessionId, 'editor'), { cause }), {
      code: cause.code,
    });
  return Object.assign(new Error(error instanceof Error ? error.message : String(error), { cause: error }), {
    code: 'internal',
  });
}
