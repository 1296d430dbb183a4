import { fileURLToPath } from 'node:url';
import type { AgentConnection } from '@agentclientprotocol/sdk';
import {
  type AnyMessage,
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  client,
  methods,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type Stream,
} from '@agentclientprotocol/sdk';
import type { BaseMessage } from '@langchain/core/messages';
import { type AcpRuntime, type AcpTurnOptions, type AcpTurnResult, serveAcp } from '../src/index.js';

/**
 * Session folders: `session/new|load|resume` want an absolute path to a folder that exists. This package's own folders
 * serve (nothing is written to them: the tests' file access goes through the fake editor).
 */
export const W = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
export const WORK = fileURLToPath(new URL('../src', import.meta.url));
export const ELSEWHERE = fileURLToPath(new URL('.', import.meta.url)).replace(/\/$/, '');

/** Two ends of an in-memory connection. */
export function streamPair(): [Stream, Stream] {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  return [
    { writable: toClient.writable, readable: toAgent.readable },
    { writable: toAgent.writable, readable: toClient.readable },
  ];
}

export type Turn = (text: string, options: AcpTurnOptions, sessionId: string) => Promise<AcpTurnResult>;

/** A runtime whose turns the test plays, and which records what it was asked. */
export function fakeRuntime(
  init: { turn?: Turn; history?: BaseMessage[]; identity?: () => string | undefined } = {},
) {
  let next = 1;
  const sessions = new Set<string>(init.history ? ['stored-1'] : []);
  const logs: string[] = [];
  const turns: Array<{ sessionId: string; text: string; options: AcpTurnOptions }> = [];
  // What the application keeps of "allow for this session" answers (birdie: the session's thread).
  const grants = new Map<string, Array<{ tool: string; identity: string }>>();
  const runtime: AcpRuntime & { turn?: Turn } = {
    info: { name: 'birdie', version: '9.9.9' },
    cwd: '/home/user',
    defaultApproval: 'ask',
    turn: init.turn,
    async createSession() {
      const id = `session-${next++}`;
      sessions.add(id);
      return id;
    },
    async hasSession(id) {
      return sessions.has(id);
    },
    async history() {
      return init.history ?? [];
    },
    async listSessions() {
      return [...sessions].reverse().map((id) => ({ id, title: `title of ${id}` }));
    },
    async sessionGrants(id) {
      return grants.get(id) ?? [];
    },
    async runTurn(sessionId, text, options) {
      turns.push({ sessionId, text, options });
      const decide: AcpTurnOptions['decide'] = async (requests) => {
        const decisions = await options.decide(requests);
        for (const request of requests) {
          const decision = decisions[request.id];
          // A whole tool only: a command pattern is a session rule the agent applies itself.
          if (
            decision?.type === 'approve' &&
            decision.scope === 'session' &&
            decision.pattern === undefined &&
            request.skill
          )
            grants.set(sessionId, [
              ...(grants.get(sessionId) ?? []),
              { tool: request.tool, identity: runtime.skillIdentity(request.skill)! },
            ]);
        }
        return decisions;
      };
      const played = { ...options, decide };
      return runtime.turn ? runtime.turn(text, played, sessionId) : { status: 'ok' };
    },
    skillIdentity: (skill) => (init.identity ? init.identity() : `bundled:/skills/${skill}/SKILL.md`),
    log: (line) => void logs.push(line),
  };
  return { runtime, logs, turns };
}

export interface TestClient {
  connection: ClientConnection;
  agentConnection: AgentConnection;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  files: Map<string, string>;
  answer: (
    request: RequestPermissionRequest,
  ) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  /** The forms (`elicitation/create`) the agent showed the editor. */
  forms: CreateElicitationRequest[];
  fill: (request: CreateElicitationRequest) => CreateElicitationResponse;
}

/** birdie's ACP agent on one end, the SDK's client on the other, with a file system of buffers if asked. */
export function connect(runtime: AcpRuntime): TestClient {
  const [agentEnd, clientEnd] = streamPair();
  const agentConnection = serveAcp(runtime, agentEnd);
  const state = {
    updates: [] as SessionNotification[],
    permissions: [] as RequestPermissionRequest[],
    files: new Map<string, string>(),
    answer: (
      _request: RequestPermissionRequest,
    ): RequestPermissionResponse | Promise<RequestPermissionResponse> => ({
      outcome: { outcome: 'selected', optionId: 'allow-once' },
    }),
    forms: [] as CreateElicitationRequest[],
    fill: (_request: CreateElicitationRequest): CreateElicitationResponse => ({ action: 'decline' }),
  };
  const app = client({ name: 'test-editor' })
    .onNotification(methods.client.session.update, ({ params }) => {
      state.updates.push(params);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      state.permissions.push(params);
      return test.answer(params);
    })
    .onRequest(methods.client.elicitation.create, ({ params }) => {
      state.forms.push(params);
      return test.fill(params);
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => ({
      content: state.files.get(params.path) ?? '',
    }))
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      state.files.set(params.path, params.content);
      return {};
    });
  const connection = app.connect(clientEnd);
  const test: TestClient = { connection, agentConnection, ...state };
  return test;
}

/** `session/update` kinds in order, with the tool call id or status where there is one. */
export function outline(updates: SessionNotification[]): string[] {
  return updates.map(({ update }) => {
    if (update.sessionUpdate === 'tool_call') return `tool_call ${update.toolCallId} ${update.status}`;
    if (update.sessionUpdate === 'tool_call_update')
      return `tool_call_update ${update.toolCallId} ${update.status}`;
    if (update.sessionUpdate === 'agent_message_chunk' || update.sessionUpdate === 'user_message_chunk')
      return `${update.sessionUpdate} ${update.content.type === 'text' ? update.content.text : ''}`;
    if (update.sessionUpdate === 'plan') return `plan ${update.entries.map((e) => e.status).join(',')}`;
    return update.sessionUpdate;
  });
}
