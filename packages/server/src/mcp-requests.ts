import { randomUUID } from 'node:crypto';
import type { McpElicitationResult, McpTurnHandlers } from '@birdie/graph/event-json';

/** What the client is asked (the `mcp-request` event) and what it answers (`POST …/mcp-requests/{requestId}`). */
export type McpRequestKind = 'sampling' | 'sampling-answer' | 'elicitation';

export interface McpRequestEvent {
  type: 'mcp-request';
  id: string;
  kind: McpRequestKind;
  server: string;
  /** The server's request: `sampling/createMessage` or `elicitation/create` params. */
  request: Record<string, unknown>;
  /** For `sampling-answer`: the model's answer, returned to the server only if approved. */
  answer?: string;
}

export interface McpRequestAnswer {
  /** Sampling: whether the request (or the answer) may go on. */
  approve?: boolean;
  /** Elicitation: the user's action and, when accepting, the form's values. */
  action?: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

interface Pending {
  sessionId: string;
  kind: McpRequestKind;
  settle(answer: McpRequestAnswer | undefined): void;
}

/**
 * MCP servers' requests during an API turn, passed to the client: each is an `mcp-request` event on the turn's stream
 * and waits for its answer (`answer`) on this worker; unanswered within `timeoutMs` (or when the turn ends), sampling
 * is refused and elicitation declined.
 */
export class McpRequests {
  readonly #pending = new Map<string, Pending>();

  constructor(private readonly timeoutMs = 5 * 60_000) {}

  /** The turn's handlers: every request becomes an event through `push`. */
  handlersFor(
    sessionId: string,
    push: (event: McpRequestEvent) => void,
    signal: AbortSignal,
  ): McpTurnHandlers {
    const ask = (event: Omit<McpRequestEvent, 'type' | 'id'>) =>
      new Promise<McpRequestAnswer | undefined>((resolve) => {
        const id = randomUUID();
        const timer = setTimeout(() => settle(undefined), this.timeoutMs);
        timer.unref();
        const onAbort = () => settle(undefined);
        const settle = (answer: McpRequestAnswer | undefined) => {
          if (!this.#pending.delete(id)) return;
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        };
        this.#pending.set(id, { sessionId, kind: event.kind, settle });
        signal.addEventListener('abort', onAbort, { once: true });
        push({ type: 'mcp-request', id, ...event });
      });
    return {
      approveSampling: async ({ server, request, answer }) => {
        const reply = await ask({
          kind: answer === undefined ? 'sampling' : 'sampling-answer',
          server,
          request: request as unknown as Record<string, unknown>,
          ...(answer !== undefined ? { answer } : {}),
        });
        return reply?.approve === true;
      },
      elicit: async (request, { server }): Promise<McpElicitationResult> => {
        const reply = await ask({
          kind: 'elicitation',
          server,
          request: request as unknown as Record<string, unknown>,
        });
        if (reply?.action === 'accept') return { action: 'accept', content: reply.content ?? {} };
        return { action: reply?.action ?? 'decline' };
      },
    };
  }

  /** Answers a waiting request of the session; false when there is none by that id (answered, timed out, unknown). */
  answer(sessionId: string, id: string, answer: McpRequestAnswer): boolean {
    const pending = this.#pending.get(id);
    if (!pending || pending.sessionId !== sessionId) return false;
    pending.settle(answer);
    return true;
  }
}
