import { createParser } from 'eventsource-parser';
import type { ApprovalDecision, Run, Session, SessionDetail, Skill, TurnEvent } from './types.js';

const TOKEN_KEY = 'birdie.token';

/** The token lives in this tab's session storage only: never in the URL, never in local storage. */
export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An API refusal, in the API's own words (`{ error: { code, message } }`). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A failure as the page says it: a refused request without the API's `invalid request body: FIELD: ` (the user filled in a
 * form, not JSON), its first letter capitalised; every other message as it is.
 */
export function shownFailure(failure: unknown): string {
  if (failure instanceof ApiFailure && failure.code === 'invalid-request') {
    const text = failure.message.replace(/^invalid (?:request body|\w+): (?:[\w.]+: )?/, '');
    return text.charAt(0).toUpperCase() + text.slice(1);
  }
  return failure instanceof Error ? failure.message : String(failure);
}

/**
 * The request got no answer at all: the browser could not connect, or the connection failed before a response came
 * (`fetch` rejected). A request refused at connect time never reached the server.
 */
export class Unreachable extends Error {
  constructor(cause: unknown) {
    super(`The server could not be reached (${cause instanceof Error ? cause.message : String(cause)})`, {
      cause,
    });
  }
}

export interface StreamHandlers {
  onEvent(event: TurnEvent): void;
  /**
   * The id of each recorded event, for reattaching with `Last-Event-ID`: called after that event's `onEvent` (or
   * alone for an `id:` without data, which covers the tokens before it), so what was handled until then is exactly
   * what a reattach from this id does not send again.
   */
  onId?(id: number): void;
  signal?: AbortSignal;
}

export class Api {
  /** `onUnauthorized`: the server refused the token (401: revoked, or unknown to it); called before the call rejects. */
  constructor(
    readonly token: string,
    private readonly onUnauthorized?: () => void,
  ) {}

  async #fetch(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    // A token is printable ASCII: anything else (a typo with an accent, a pasted zero-width space) is not one, and
    // fetch would refuse the header as if the server could not be reached.
    if (!/^[\x21-\x7e]+$/.test(this.token)) {
      this.onUnauthorized?.();
      throw new ApiFailure(
        401,
        'unauthorized',
        'That token is not valid (it holds characters no token has).',
      );
    }
    const init: RequestInit = {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    };
    let response: Response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      throw new Unreachable(error);
    }
    if (!response.ok) {
      const failure = await failureOf(response);
      if (failure.status === 401) this.onUnauthorized?.();
      throw failure;
    }
    return response;
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.#fetch(method, path, body);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  sessions = (q?: string) =>
    this.json<{ sessions: Session[] }>('GET', `/v1/sessions${q ? `?q=${encodeURIComponent(q)}` : ''}`);
  session = (id: string) => this.json<SessionDetail>('GET', `/v1/sessions/${encodeURIComponent(id)}`);
  createSession = (body: { agent?: string; enable?: string[]; title?: string }) =>
    this.json<Session>('POST', '/v1/sessions', body);
  renameSession = (id: string, title: string) =>
    this.json<Session>('PATCH', `/v1/sessions/${encodeURIComponent(id)}`, { title });
  deleteSession = (id: string) => this.json<void>('DELETE', `/v1/sessions/${encodeURIComponent(id)}`);
  cancel = (id: string) =>
    this.json<{ cancelled: boolean }>('POST', `/v1/sessions/${encodeURIComponent(id)}/cancel`);
  skills = () => this.json<{ skills: Skill[] }>('GET', '/v1/skills');
  agents = () => this.json<{ agents: Array<{ name: string; description?: string }> }>('GET', '/v1/agents');
  setSkills = (id: string, body: { enable: string[]; disable: string[] }) =>
    this.json<unknown>('PUT', `/v1/sessions/${encodeURIComponent(id)}/skills`, body);
  runs = (query: Record<string, string>) =>
    this.json<{ runs: Run[] }>('GET', `/v1/runs?${new URLSearchParams(query)}`);
  run = (id: number) => this.json<Run>('GET', `/v1/runs/${id}`);
  tasks = () => this.json<{ tasks: Array<Record<string, unknown>> }>('GET', '/v1/tasks');
  cancelTask = (id: string | number) => this.json<void>('DELETE', `/v1/tasks/${encodeURIComponent(id)}`);

  /** A turn: `POST …/turns`, its events read from the response body as they come. */
  turn = (id: string, prompt: string, h: StreamHandlers) =>
    this.#stream('POST', `/v1/sessions/${encodeURIComponent(id)}/turns`, { prompt }, {}, h);
  approvals = (id: string, decisions: Record<string, ApprovalDecision>, h: StreamHandlers) =>
    this.#stream('POST', `/v1/sessions/${encodeURIComponent(id)}/approvals`, { decisions }, {}, h);
  /**
   * Reattach: the rest of `lastId`'s turn if it still runs, else the session's events after `lastId` (none: its newest
   * turn from the start).
   */
  follow = (id: string, lastId: number | undefined, h: StreamHandlers) =>
    this.#stream(
      'GET',
      `/v1/sessions/${encodeURIComponent(id)}/events`,
      undefined,
      lastId === undefined ? {} : { 'last-event-id': String(lastId) },
      h,
    );

  // An EventSource cannot send the Authorization header: fetch and a reader, parsed by eventsource-parser.
  async #stream(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
    h: StreamHandlers,
  ): Promise<void> {
    const response = await this.#fetch(method, path, body, { accept: 'text/event-stream', ...headers });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    // The parser gives an event's id before the event; it is passed on after it. An `id: N` alone (recorded tokens
    // moved the last event id on) is passed on before whatever comes next.
    let idAlone: string | undefined;
    const flush = () => {
      if (idAlone !== undefined) h.onId?.(Number(idAlone));
      idAlone = undefined;
    };
    const parser = createParser({
      onId: (id) => {
        flush();
        idAlone = id;
      },
      onEvent: (message) => {
        if (message.id === undefined) flush();
        idAlone = undefined;
        h.onEvent(JSON.parse(message.data) as TurnEvent);
        if (message.id !== undefined) h.onId?.(Number(message.id));
      },
    });
    const abort = () => void reader.cancel().catch(() => {});
    h.signal?.addEventListener('abort', abort, { once: true });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
        flush();
      }
    } finally {
      h.signal?.removeEventListener('abort', abort);
    }
  }
}

async function failureOf(response: Response): Promise<ApiFailure> {
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    return new ApiFailure(
      response.status,
      body.error?.code ?? 'unknown',
      body.error?.message ?? response.statusText,
    );
  } catch {
    return new ApiFailure(response.status, 'unknown', `${response.status} ${response.statusText}`);
  }
}
