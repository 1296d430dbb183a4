import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import {
  type AgentConnection,
  type AgentContext,
  agent,
  type ClientCapabilities,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type SessionUpdate,
  type StopReason,
  type Stream,
} from '@agentclientprotocol/sdk';
import type { ApprovalMode } from '@birdie/graph';
import { StopReason as RunStopReason } from '@birdie/graph/stop-reason';
import { clientFiles } from './file-bridge.js';
import { acpMcpHandlers } from './mcp-sampling.js';
import { isApprovalMode, modeState } from './modes.js';
import { askPermissions, ToolGrants } from './permissions.js';
import { promptIsEmpty, promptText } from './prompt-text.js';
import type { AcpRuntime } from './runtime.js';
import { replayUpdates, UpdateTranslator } from './updates.js';

interface SessionState {
  cwd: string;
  approval: ApprovalMode;
  grants: ToolGrants;
  /** The prompt in progress, if any: `session/cancel` aborts it. */
  turn?: AbortController;
  /** The todo plan's steps as last shown to the editor (see `UpdateTranslator`). */
  plan?: { steps: readonly string[] };
}

/**
 * Serves birdie as an ACP agent on `stream` (`ndJsonStream` over stdio, in the CLI) until the client goes away:
 * initialize (no authentication), new and load session, prompt with streamed updates, cancel, the approval modes as
 * session modes, approvals as permission requests, and the client's file access for `node:` tools.
 */
export function serveAcp(runtime: AcpRuntime, stream: Stream): AgentConnection {
  let capabilities: ClientCapabilities | undefined;
  const sessions = new Map<string, SessionState>();

  const known = (sessionId: string): SessionState => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };
  /**
   * The session's folder as ACP requires it: an absolute path (the spec) to a folder that exists, so that a client's
   * mistake is refused at session/new|load|resume rather than met by the first tool call that resolves a path in it.
   */
  const folder = async (cwd: unknown): Promise<string> => {
    if (typeof cwd !== 'string' || !isAbsolute(cwd) || cwd.includes('\0'))
      throw RequestError.invalidParams({ cwd }, 'cwd must be an absolute path');
    const found = await stat(cwd).catch(() => undefined);
    if (!found) throw RequestError.invalidParams({ cwd }, `cwd ${cwd} does not exist`);
    if (!found.isDirectory()) throw RequestError.invalidParams({ cwd }, `cwd ${cwd} is not a folder`);
    return cwd;
  };
  const note = (what: string, mcpServers: readonly unknown[]) => {
    if (mcpServers.length > 0)
      runtime.log(
        `birdie acp: ${what}: the client's ${mcpServers.length} MCP server(s) are not used; birdie's skills declare its MCP servers`,
      );
  };

  /** A stored session opened in this connection (load, resume), with the grants the user gave it before. */
  const open = async (sessionId: string, cwd: string): Promise<SessionState> => {
    if (!(await runtime.hasSession(sessionId))) throw RequestError.sessionNotFound(sessionId);
    const session = sessions.get(sessionId) ?? {
      cwd,
      approval: runtime.defaultApproval,
      grants: new ToolGrants(),
    };
    session.cwd = cwd;
    for (const { tool, identity } of await runtime.sessionGrants(sessionId))
      session.grants.grant(tool, identity);
    sessions.set(sessionId, session);
    return session;
  };

  const app = agent({ name: 'birdie' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      capabilities = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          sessionCapabilities: { list: {}, resume: {}, close: {} },
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: false, sse: false },
        },
        authMethods: [],
        agentInfo: { name: runtime.info.name, version: runtime.info.version },
      };
    })
    .onRequest(methods.agent.session.new, async ({ params }) => {
      const cwd = await folder(params.cwd);
      note('session/new', params.mcpServers);
      const sessionId = await runtime.createSession();
      sessions.set(sessionId, { cwd, approval: runtime.defaultApproval, grants: new ToolGrants() });
      return { sessionId, modes: modeState(runtime.defaultApproval) };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      note('session/load', params.mcpServers);
      const session = await open(params.sessionId, await folder(params.cwd));
      for (const update of replayUpdates(await runtime.history(params.sessionId), session.cwd))
        await client.notify(methods.client.session.update, { sessionId: params.sessionId, update });
      return { modes: modeState(session.approval) };
    })
    .onRequest(methods.agent.session.resume, async ({ params }) => {
      note('session/resume', params.mcpServers ?? []);
      // As load, without replaying the conversation: the client has it.
      const session = await open(params.sessionId, await folder(params.cwd));
      return { modes: modeState(session.approval) };
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      // The spec's paths are absolute, as session/new|load|resume already require: a relative one is not echoed.
      if (
        params.cwd !== undefined &&
        params.cwd !== null &&
        (typeof params.cwd !== 'string' || !isAbsolute(params.cwd))
      )
        throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
      const listed = await runtime.listSessions();
      return {
        sessions: listed.map((s) => ({
          sessionId: s.id,
          // birdie's sessions are not bound to a folder: the one this connection uses for it, else the one asked.
          cwd: sessions.get(s.id)?.cwd ?? params.cwd ?? runtime.cwd,
          ...(s.title !== undefined ? { title: s.title } : {}),
          ...(s.updatedAt ? { updatedAt: s.updatedAt.toISOString() } : {}),
        })),
      };
    })
    .onRequest(methods.agent.session.close, ({ params }) => {
      const session = known(params.sessionId);
      // A tool the close cuts off is answered with what stopped it: the editor, not the user's cancel.
      session.turn?.abort(
        new RunStopReason('the session was closed', 'Stopped because the editor closed the session'),
      );
      sessions.delete(params.sessionId);
      return {};
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      const session = known(params.sessionId);
      if (!isApprovalMode(params.modeId))
        throw RequestError.invalidParams({ modeId: params.modeId }, 'the modes are ask, always and never');
      session.approval = params.modeId;
      return {};
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort(new Error('cancelled by the client'));
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client, signal }) => {
      const session = known(params.sessionId);
      if (promptIsEmpty(params.prompt))
        throw RequestError.invalidParams(
          { prompt: params.prompt },
          'the prompt is empty: give it a text or a resource',
        );
      if (session.turn)
        throw RequestError.invalidRequest(undefined, 'this session is already answering a prompt');
      const turn = new AbortController();
      session.turn = turn;
      // The request's own cancellation, or the client going away, stops the turn and its tools too.
      const stop = () => turn.abort(new Error('the prompt request was cancelled'));
      signal.addEventListener('abort', stop, { once: true });
      try {
        return {
          stopReason: await runPrompt(
            runtime,
            client,
            params.sessionId,
            session,
            promptText(params.prompt),
            turn.signal,
            capabilities,
          ),
        };
      } catch (error) {
        // Whatever else went wrong answering the prompt is still a failed turn with a code, never a bare -32603.
        if (error instanceof RequestError) throw error;
        throw turnFailure('internal', error instanceof Error ? error.message : String(error));
      } finally {
        signal.removeEventListener('abort', stop);
        session.turn = undefined;
      }
    });
  return app.connect(stream);
}

async function runPrompt(
  runtime: AcpRuntime,
  client: AgentContext,
  sessionId: string,
  session: SessionState,
  text: string,
  signal: AbortSignal,
  capabilities: ClientCapabilities | undefined,
): Promise<StopReason> {
  session.plan ??= { steps: [] };
  const translator = new UpdateTranslator(session.cwd, session.plan);
  // Updates are sent one after another, so the client sees them in the order the agent produced them.
  let sent: Promise<void> = Promise.resolve();
  const send = (update: SessionUpdate) => {
    sent = sent
      .then(() => client.notify(methods.client.session.update, { sessionId, update }))
      .catch(() => {});
  };
  const files = clientFiles(client, sessionId, capabilities);
  let result: Awaited<ReturnType<AcpRuntime['runTurn']>>;
  try {
    result = await runtime.runTurn(sessionId, text, {
      approval: session.approval,
      signal,
      cwd: session.cwd,
      ...(files ? { files } : {}),
      mcp: acpMcpHandlers(client, sessionId, signal, capabilities, (line) => runtime.log(line), send),
      onEvent(event) {
        // How full the context is after each model call of the session's own agent: the editor's usage meter.
        if (event.type === 'usage' && event.context && (event.agent?.length ?? 0) <= 1) {
          send({ sessionUpdate: 'usage_update', used: event.context.tokens, size: event.context.window });
          return;
        }
        if (event.type === 'error') {
          runtime.log(`birdie acp: ${event.error.code}: ${event.error.message}`);
          send({
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: `\n(birdie: ${event.error.message})\n` },
          });
          return;
        }
        for (const update of translator.translate(event)) send(update);
      },
      async decide(requests) {
        await sent;
        return askPermissions(requests, {
          client,
          sessionId,
          cwd: session.cwd,
          grants: session.grants,
          identityOf: (skill) => runtime.skillIdentity(skill),
          signal,
          log: (line) => runtime.log(line),
        });
      },
    });
  } catch (error) {
    for (const update of translator.close('Not run: the turn could not start.')) send(update);
    await sent;
    throw turnFailure(codeOf(error), error instanceof Error ? error.message : String(error));
  }
  const cancelled = result.status === 'aborted' || signal.aborted;
  for (const update of translator.close(
    cancelled ? 'Cancelled.' : 'The turn ended before this call finished.',
  ))
    send(update);
  await sent;
  if (cancelled) return 'cancelled';
  if (result.status === 'error') throw turnFailure(result.errorCode, result.error ?? 'the turn failed');
  return 'end_turn';
}

/**
 * A turn that failed or could not start: `-32603` with the stable code of why as `data.code`, always (`internal`
 * when nothing named it), so that a client tells "busy, retry later" from a model's failure without reading English.
 */
function turnFailure(code: string | undefined, message: string): RequestError {
  return RequestError.internalError({ code: code ?? 'internal' }, message);
}

function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code !== '' ? code : undefined;
}
