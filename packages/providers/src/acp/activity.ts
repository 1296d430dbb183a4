import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
  ToolCallContent,
} from '@agentclientprotocol/sdk';

/** A tool call of the inner agent as birdie shows it (the graph's `model-tool` event, without its type). */
export interface ToolActivity {
  id: string;
  title: string;
  kind?: string;
  status: 'pending' | 'in_progress' | 'completed' | 'failed';
  input?: unknown;
  output?: string;
}

/** What the agent node offers a model that runs its own agent; see `MODEL_CHANNEL` in `@birdie/graph`. */
export interface ModelChannel {
  readonly threadId: string;
  readonly cwd: string;
  toolActivity(activity: ToolActivity): void;
  approve(ask: {
    id: string;
    tool: string;
    args?: Record<string, unknown>;
    description: string;
  }): Promise<
    | { type: 'approve' }
    | { type: 'edit'; args: Record<string, unknown> }
    | { type: 'reject'; message?: string }
  >;
}

export const MODEL_CHANNEL = 'birdie-model-channel';

/** The channel among a model call's callback handlers (the agent node adds it), or undefined outside birdie's graph. */
export function findChannel(handlers: readonly unknown[] | undefined): ModelChannel | undefined {
  const found = handlers?.find((h) => (h as { name?: unknown } | null)?.name === MODEL_CHANNEL);
  const channel = found as Partial<ModelChannel> | undefined;
  return channel && typeof channel.approve === 'function' && typeof channel.toolActivity === 'function'
    ? (channel as ModelChannel)
    : undefined;
}

/** Folds the agent's `tool_call` / `tool_call_update` notifications into whole activities, one per change. */
export class ToolCalls {
  readonly #calls = new Map<string, ToolActivity>();

  apply(update: SessionUpdate): ToolActivity | undefined {
    if (update.sessionUpdate === 'tool_call') {
      const call: ToolActivity = {
        id: update.toolCallId,
        title: update.title,
        status: update.status ?? 'pending',
        ...(update.kind ? { kind: update.kind } : {}),
        ...(update.rawInput !== undefined ? { input: update.rawInput } : {}),
        ...outputOf(update.content),
      };
      this.#calls.set(call.id, call);
      return { ...call };
    }
    if (update.sessionUpdate === 'tool_call_update') {
      const before = this.#calls.get(update.toolCallId) ?? {
        id: update.toolCallId,
        title: update.title ?? update.toolCallId,
        status: 'pending' as const,
      };
      const call: ToolActivity = {
        ...before,
        ...(update.title ? { title: update.title } : {}),
        ...(update.kind ? { kind: update.kind } : {}),
        ...(update.status ? { status: update.status } : {}),
        ...(update.rawInput !== undefined && update.rawInput !== null ? { input: update.rawInput } : {}),
        ...outputOf(update.content),
      };
      this.#calls.set(call.id, call);
      return { ...call };
    }
    return undefined;
  }

  /** The name and input to ask about, from the call the request names (known from earlier updates or the request). */
  describe(request: RequestPermissionRequest): {
    tool: string;
    args: Record<string, unknown>;
    description: string;
  } {
    const known = this.#calls.get(request.toolCall.toolCallId);
    const title = request.toolCall.title ?? known?.title ?? request.toolCall.toolCallId;
    const input = request.toolCall.rawInput ?? known?.input;
    const args =
      input !== null && typeof input === 'object' && !Array.isArray(input)
        ? (input as Record<string, unknown>)
        : input === undefined
          ? {}
          : { input };
    const tool = request.toolCall.name ?? known?.kind ?? request.toolCall.kind ?? 'tool';
    return { tool, args, description: title };
  }
}

function outputOf(content: ToolCallContent[] | null | undefined): { output?: string } {
  if (!content?.length) return {};
  const parts = content.map((block) => {
    if (block.type === 'diff') return `${block.path}: edited`;
    if (block.type === 'terminal') return `(terminal ${block.terminalId})`;
    const inner = block.content;
    return inner.type === 'text' ? inner.text : `(${inner.type})`;
  });
  return { output: parts.join('\n') };
}

/**
 * The option that carries a decision: approve → allow once (else allow always), anything else → reject once (else
 * reject always); none that fits → `cancelled`.
 */
export function answerFor(
  decision: { type: 'approve' | 'edit' | 'reject' },
  options: readonly PermissionOption[],
): RequestPermissionResponse {
  const kinds: PermissionOption['kind'][] =
    decision.type === 'approve' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of kinds) {
    const option = options.find((o) => o.kind === kind);
    if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  return { outcome: { outcome: 'cancelled' } };
}
