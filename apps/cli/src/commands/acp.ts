import { Readable, Writable } from 'node:stream';
import type { AcpRuntime } from '@birdie/acp';
import { type Io, write } from '../io.js';
import type { CommandContext } from '../main.js';
import { reportSkillProblems } from '../render/diagnostics.js';
import {
  agentFlag,
  approvalMode,
  findSession,
  openRuntime,
  staleGrantNotes,
  waitingLine,
  waitMs,
} from '../runtime.js';
import { useSession } from '../session-start.js';
import { skillFlags } from '../skill-flags.js';
import { endChildProcesses, onStopSignal } from '../stop-signals.js';
import { skippedLine } from '../trust.js';
import { executeTurn } from '../turn.js';
import { cliVersion } from '../version.js';

/**
 * `birdie acp`: the Agent Client Protocol on stdin/stdout for an editor, over the same runtime as `run` and the REPL.
 * stdout carries the protocol and nothing else: the runtime writes its notes to stderr, and so does anything that
 * calls `console.log`. Ends when the editor closes stdin (or on SIGTERM/SIGINT), after the running turns stopped and
 * every tool process is gone.
 */
export async function acpCommand({ io, values }: CommandContext): Promise<number> {
  approvalMode(values); // a bad --approval fails before anything loads
  const wait = waitMs(values, 5);
  const protocol = { input: io.stdin, output: io.stdout };
  const logIo: Io = { ...io, stdout: io.stderr };
  const restoreConsole = consoleToStderr();
  const rt = await openRuntime(logIo, values);
  const log = (line: string) => write(io.stderr, line);
  try {
    reportSkillProblems(rt.registry.messages, logIo);
    const skipped = skippedLine(rt.registry.current().untrusted);
    if (skipped) log(skipped);
    const flags = skillFlags(rt, values);
    const agent = agentFlag(rt, values);
    // A session made here starts with --agent's agent; after that (and in a loaded session) whoever spoke last goes
    // on, so a handoff holds across turns.
    const startsWithAgent = new Set<string>();
    const approval = approvalMode(values, rt.config.settings.approval);
    const [{ serveAcp }, { ndJsonStream }, { skillIdentity }] = await Promise.all([
      import('@birdie/acp'),
      import('@agentclientprotocol/sdk'),
      import('@birdie/registry'),
    ]);
    const running = new Set<Promise<unknown>>();
    const runtime: AcpRuntime = {
      info: { name: 'birdie', version: cliVersion() },
      defaultApproval: approval,
      async createSession() {
        const session = await useSession(rt, undefined, { flags });
        if (agent !== undefined) startsWithAgent.add(session.id);
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
      cwd: rt.cwd,
      async listSessions() {
        return (await rt.store.sessions.list(rt.userId)).map((s) => ({
          id: s.id,
          updatedAt: s.updatedAt,
          ...(s.title !== undefined ? { title: s.title } : {}),
        }));
      },
      // The session's approvals live in its thread, bound to the digest of the skill file, and the agent applies
      // them before it asks: a call allowed for the session never reaches the editor's permission prompt, in this
      // process or after a restart. Nothing more to seed.
      async sessionGrants() {
        return [];
      },
      async runTurn(id, text, o) {
        // Opens the session with its grants read from the store (a session loaded after a restart has them too).
        const session = await useSession(rt, id);
        for (const line of staleGrantNotes(rt, session.id)) log(`birdie: ${line}`);
        const turn = executeTurn(rt, session, text, {
          approval: o.approval,
          signal: o.signal,
          waitMs: wait,
          cwd: o.cwd,
          ...(startsWithAgent.delete(session.id) ? { agent } : {}),
          ...(o.files ? { files: o.files } : {}),
          handlers: {
            // ACP ends a prompt with its own stop reason; the turn's closing done is not an update to send.
            onEvent: (event) => {
              if (event.type !== 'done') o.onEvent(event);
            },
            decide: o.decide,
            onWait: (holder, ms) => log(waitingLine(session.id, holder, ms)),
          },
        });
        running.add(turn);
        try {
          const result = await turn;
          // The ACP runtime speaks the graph's words: a cancelled turn is `aborted` there.
          return { ...result, status: result.status === 'cancelled' ? 'aborted' : result.status };
        } finally {
          running.delete(turn);
        }
      },
      skillIdentity: (skill) => skillIdentity(rt.registry.current(), skill),
      log,
    };
    const connection = serveAcp(
      runtime,
      ndJsonStream(
        Writable.toWeb(protocol.output) as WritableStream<Uint8Array>,
        Readable.toWeb(protocol.input) as ReadableStream<Uint8Array>,
      ),
    );
    const stopListening = onStopSignal((signal) => connection.close(new Error(`stopped by ${signal}`)));
    try {
      await connection.closed;
    } finally {
      stopListening();
    }
    // The connection's end aborted every prompt; their turns finish (tools killed, run log written) before the end.
    await Promise.allSettled([...running]);
    return 0;
  } finally {
    await rt.close();
    await endChildProcesses();
    restoreConsole();
  }
}

/** Sends `console.log`/`info`/`debug` (a library's stray output) to stderr while the protocol owns stdout. */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = console.error;
  return () => Object.assign(console, saved);
}
