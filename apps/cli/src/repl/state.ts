import type { ApprovalMode } from '@birdie/graph';
import type { RegistryWatcher } from '@birdie/registry';
import type { Runtime } from '@birdie/runtime/runtime';
import type { Session } from '@birdie/store';
import {
  type DiagnosticLike,
  formatDiagnostic,
  plural,
  reportSkillProblems,
} from '@birdie/terminal/diagnostics';
import type { Style } from '@birdie/terminal/style';
import { visible } from '@birdie/terminal/terminal-text';
import type { ToolOutputMode } from '@birdie/terminal/tool-output';
import { workspaceContents } from '@birdie/terminal/workspace-trust';
import type { Io } from '../io.js';
import { terminalColumns } from './screen-fit.js';
import { statusLine } from './status.js';

/** What one REPL process holds: the runtime, the current session and the user's display choices. */
export interface ReplState {
  io: Io;
  style: Style;
  rt: Runtime;
  session: Session;
  approval: ApprovalMode;
  /** How long a turn waits for the session when another process is using it, ms (`--wait`, default 5 s). */
  waitMs: number;
  toolMode: ToolOutputMode;
  contextTokens: number;
  /** The input limit of the last call's model (0 until a call reports it). */
  contextWindow: number;
  /** The model `/model` chose for the next turns (a tier or `vendor:model`); undefined: the provider's / agent's. */
  model?: string;
  /** The model in use as birdie names it (`vendor:model`), for the status line and /info. */
  modelName: string;
  /** Messages from background work (skill reloads) shown before the next prompt. */
  notices: string[];
  /** The registry's warnings and errors at start-up, printed once (then emptied) before the first prompt or turn. */
  startupProblems: DiagnosticLike[];
  /**
   * The agent the next turn names (`--agent`, `/agent NAME`; `null`: the default agent); undefined lets the session
   * continue with whoever spoke last (after a handoff, the agent handed to).
   */
  nextAgent?: string | null;
  /** The agent answering now, for the status line: the session's last speaker, or the one just chosen. */
  agentName?: string;
  /** Digests of untrusted workspaces the user answered "not now" about in this process. */
  trustPutOff: Set<string>;
  watcher?: RegistryWatcher;
}

/** Prints a line; returns `undefined` so a slash handler can `return out(…)`. */
export function out(state: ReplState, text = ''): undefined {
  state.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return undefined;
}

export async function printStatus(state: ReplState): Promise<void> {
  const totals = (await state.rt.store.sessions.get(state.session.id, state.rt.userId)) ?? state.session;
  out(
    state,
    statusLine(
      {
        ...(state.agentName ? { agent: state.agentName } : {}),
        vendor: vendorOf(state.modelName),
        model: state.modelName.slice(vendorOf(state.modelName).length + 1),
        sessionId: state.session.id,
        contextTokens: state.contextTokens,
        contextWindow: state.contextWindow,
        inputTokens: totals.inputTokens,
        outputTokens: totals.outputTokens,
      },
      state.style,
      terminalColumns(state.io.stdout),
    ),
  );
}

const vendorOf = (name: string) => name.slice(0, Math.max(0, name.indexOf(':')));

/**
 * Makes `session` current (the runtime loads its grants and drops an empty session left behind); the context count
 * starts over.
 */
export async function switchTo(state: ReplState, session: Session): Promise<void> {
  const { switchSession } = await import('@birdie/runtime/session-switch');
  state.notices.push(...(await switchSession(state.rt, state.session, session)));
  state.session = session;
  state.contextTokens = 0;
  state.contextWindow = 0;
}

/** A diagnostic's identity across reloads: the same error in the same place is the same one. */
const problemKey = (m: { file?: string; line?: number | null; column?: number | null; reason: string }) =>
  `${m.file}:${m.line}:${m.column}:${m.reason}`;

export function watchSkills(state: ReplState): void {
  // The errors the user has seen already (at start, or in the last notice): a reload shows the new ones first, so the
  // error an edit just caused is not folded into "… N more" behind the same old ones.
  let seen = new Set(state.rt.registry.messages.filter((m) => m.fatal === true).map((m) => problemKey(m)));
  state.watcher = state.rt.registry.watch({
    onReload: (messages) => {
      const all = messages.filter((m) => m.fatal === true);
      const fatal = [
        ...all.filter((m) => !seen.has(problemKey(m))),
        ...all.filter((m) => seen.has(problemKey(m))),
      ];
      seen = new Set(all.map((m) => problemKey(m)));
      const more =
        fatal.length > 3
          ? [`… ${fatal.length - 3} more: /skill reload or \`birdie skills check\` lists them`]
          : [];
      // Keep it short: the notice lands between turns, and a folder being edited can be broken for a while.
      state.notices.splice(0);
      const untrusted = state.rt.registry.current().untrusted;
      state.notices.push(
        `skills reloaded: ${plural(state.rt.registry.current().skills.length, 'skill')}${fatal.length ? `, ${plural(fatal.length, 'error')}` : ''}`,
        // A trusted folder whose declarations changed is dropped at once and asked about again before the next turn.
        ...untrusted.map(
          (w) =>
            `${visible(w.path)}: its ${workspaceContents(w)} are not loaded (not trusted for what they declare now)`,
        ),
        ...fatal.slice(0, 3).map((m) => formatDiagnostic(m as DiagnosticLike, state.io.cwd, state.style)),
        ...more,
      );
    },
    onError: (error) => state.notices.push(`skills watch: ${visible(error.message)}`),
  });
}

/** Prints the start-up skill problems the first time it is called; later calls print nothing. */
export function flushStartupProblems(state: ReplState): void {
  reportSkillProblems(state.startupProblems.splice(0), state.io);
}
