import type { AgentEvent, ApprovalRequest } from '@birdie/graph/event-json';
import { openStore, type Session, type Store, StoreError } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach } from 'vitest';
import { ApiError } from '../src/errors.js';
import { type BirdieServer, createServer, type ServerOptions } from '../src/index.js';
import type { ServeRuntime, TurnHandlers, TurnInput, TurnSummary } from '../src/runtime.js';
import type { AgentInfo, SkillChange, SkillInfo } from '../src/skills.js';

/** A scripted turn: what the fake runtime does once it holds the lease (emit events, wait, return). */
export type Script = (ctx: {
  session: Session;
  input: TurnInput;
  handlers: TurnHandlers;
}) => Promise<TurnSummary>;

/**
 * A runtime over a real SQLite store whose turns are scripted: it takes the session's lease exactly as the CLI's
 * turn does (so 409 and cancel are the store's), then runs `script`.
 */
export class FakeRuntime implements ServeRuntime {
  readonly provider = 'scripted/test';
  script: Script = async ({ handlers }) => {
    handlers.onEvent({ type: 'token', text: 'hi' });
    handlers.onEvent({ type: 'done', status: 'ok' });
    return { status: 'ok', inputTokens: 1, outputTokens: 2 };
  };
  pending: ApprovalRequest[] = [];
  failWith: unknown;

  constructor(readonly store: Store) {}

  async createSession(userId: string, request: { agent?: string; title?: string }) {
    return this.store.sessions.create(userId, { ...request, perUser: true });
  }

  async skills(_userId: string): Promise<SkillInfo[]> {
    return [{ name: 'notes', description: 'Notes.', enabledByDefault: false, mcpServer: false, tools: [] }];
  }

  async agents(_userId: string): Promise<AgentInfo[]> {
    return [{ name: 'helper', description: 'Helps.' }];
  }

  /** Like the CLI's runtime: `notes` may be switched on (the policy lists it), `shell` only off, others are unknown. */
  async setSkills(session: Session, change: SkillChange) {
    for (const name of [...change.enable, ...change.disable])
      if (name !== 'notes' && name !== 'shell') throw new ApiError('invalid-request', `no skill "${name}"`);
    if (change.enable.includes('shell'))
      throw new ApiError('skill-not-allowed', 'skill "shell" is not allowed on this server');
    const grants = await this.store.grants.get(session.id, session.userId);
    const enabled = [...grants.enabled.filter((n) => !change.disable.includes(n)), ...change.enable];
    const disabled = [...grants.disabled.filter((n) => !change.enable.includes(n)), ...change.disable];
    const next = { enabled: [...new Set(enabled)], disabled: [...new Set(disabled)] };
    await this.store.grants.set(session.id, session.userId, next);
    return next;
  }

  async history() {
    if (this.failWith) throw this.failWith;
    return { messages: [{ role: 'human', content: 'hello' }], grants: { enabled: [], disabled: [] } };
  }

  async pendingApprovals() {
    return this.pending;
  }

  async deleteSession(session: Session) {
    await this.store.sessions.delete(session.id, session.userId);
  }

  async runTurn(session: Session, input: TurnInput, handlers: TurnHandlers): Promise<TurnSummary> {
    const lease = await this.store.leases.acquire(session.id, { waitMs: 0 });
    try {
      handlers.onLeased(lease);
      return await this.script({ session, input, handlers });
    } finally {
      await lease.release();
    }
  }
}

/**
 * What a worker killed in the middle of a turn stops doing, for a test whose worker "dies" in this process once the
 * session's newest turn has recorded an event of type `last`: its turns get no more writes (a dead process records
 * no event and marks no turn alive). The server's other work (a follower ending the turn as lost) still reaches the
 * store. Resolves to what brings the writes back.
 */
export async function turnWritesStop(
  store: Store,
  session: Pick<Session, 'id' | 'userId'>,
  last: string,
): Promise<() => void> {
  for (;;) {
    const turn = await store.turns.latest(session.id, session.userId);
    const recorded = turn
      ? await store.turns.events(session.id, session.userId, { afterId: 0, turnId: turn.id })
      : [];
    if (recorded.some((e) => e.event.type === last)) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const turns = store.turns;
  const append = turns.append;
  turns.append = () =>
    Promise.reject(new StoreError('unavailable', 'the worker running this turn was killed'));
  return () => {
    turns.append = append;
  };
}

export interface Harness {
  home: string;
  store: Store;
  runtime: FakeRuntime;
  server: BirdieServer;
  errors: unknown[];
  /** A token of `user` (made in the store). */
  token(user?: string): Promise<string>;
  request(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  /** Another worker over the same SQLite file. */
  worker(options?: Partial<ServerOptions>): { store: Store; runtime: FakeRuntime; server: BirdieServer };
}

/** A fresh store, runtime and server per test; `options` for the server. */
export function useServer(options: Partial<ServerOptions> = {}): Harness {
  const h = { errors: [] as unknown[] } as unknown as Harness;
  const closers: Array<() => Promise<unknown>> = [];
  beforeEach(async (context) => {
    // A failing test shows what its workers reported to the operator (`onError`): a flaky failure's only witness.
    context.onTestFailed(() => {
      for (const error of h.errors) console.error('the server reported:', error);
    });
    const dir = await makeTempDir('birdie-server-');
    h.home = dir.path;
    const open = (extra: Partial<ServerOptions> = {}) => {
      const store = openStore({ home: dir.path });
      const runtime = new FakeRuntime(store);
      const server = createServer({
        runtime,
        cancelPollMs: 20,
        onError: (error) => h.errors.push(error),
        ...options,
        ...extra,
      });
      closers.push(async () => {
        await server.close({ graceMs: 0 });
        await store.close();
      });
      return { store, runtime, server };
    };
    const main = open();
    h.store = main.store;
    h.runtime = main.runtime;
    h.server = main.server;
    h.errors.length = 0;
    h.worker = open;
    h.token = async (user = 'alice') => (await h.store.tokens.create(user)).token;
    h.request = (path, init = {}) => requestOf(h.server, path, init);
    closers.push(() => dir.cleanup());
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  return h;
}

export function requestOf(
  server: BirdieServer,
  path: string,
  init: RequestInit & { token?: string; json?: unknown } = {},
): Promise<Response> {
  const { token, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (json !== undefined) headers.set('content-type', 'application/json');
  return server.fetch(
    new Request(`http://localhost${path}`, {
      ...rest,
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json), method: rest.method ?? 'POST' } : {}),
    }),
  );
}

export type StreamEvent = { type: string } & Record<string, unknown>;

/** One block of a `text/event-stream`: an event (with its `id:` when it has one), or an `id:` alone. */
export interface Block {
  id?: number;
  event?: StreamEvent;
}

/** The blocks of a stream's text, parsed; checks each `event:` line names its data's type. */
export function blocksOf(text: string): Block[] {
  const out: Block[] = [];
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').filter((l) => l !== '' && !l.startsWith(':'));
    if (lines.length === 0) continue;
    const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
    const name = lines.find((l) => l.startsWith('event: '))?.slice(7);
    const dataLine = lines.find((l) => l.startsWith('data: '));
    const parsed: Block = id === undefined ? {} : { id: Number(id) };
    if (dataLine !== undefined) {
      const data = JSON.parse(dataLine.slice(6));
      if (data.type !== name) throw new Error(`event ${name} carries data of type ${data.type}`);
      parsed.event = data;
    }
    out.push(parsed);
  }
  return out;
}

/** The events of a `text/event-stream` body, parsed (blocks with only an `id:` are left out). */
export async function events(response: Response): Promise<StreamEvent[]> {
  return blocksOf(await response.text()).flatMap((b) => (b.event ? [b.event] : []));
}

/**
 * Reads a stream's blocks until `until` holds for an event (or the stream ends), then lets go of the body: a client
 * whose connection was cut there.
 */
export async function readUntil(
  response: Response,
  until: (event: StreamEvent) => boolean,
): Promise<Block[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
    const blocks = blocksOf(complete);
    const at = blocks.findIndex((b) => b.event && until(b.event));
    if (at >= 0) {
      await reader.cancel();
      return blocks.slice(0, at + 1);
    }
  }
  return blocksOf(text);
}

/** A promise and its resolver, for gating a scripted turn. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

export type { AgentEvent };
