import type { SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';
import type { AgentEvent } from '@birdie/graph';
import { fromSubagent } from '@birdie/graph/event-json';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { PLAN_TOOLS, planFromTodoOutput } from './plan.js';
import { ruleMeta, ruleNote } from './rule-note.js';
import { knownKind, toolKind, toolLocations, toolTitle } from './tool-view.js';

const text = (value: string): ToolCallContent[] => [
  { type: 'content', content: { type: 'text', text: value } },
];

/**
 * Turns one turn's agent events into ACP session updates, in order: the answer's tokens as agent message chunks, each
 * tool call as a `tool_call` (pending, with its kind, title, input and the files it names) followed by updates
 * (in progress, then completed or failed with its output), the todo skill's plan as a `plan` update, and the tool
 * calls of a model that is an agent itself (`model-tool`) the same way. Approvals are not updates: the caller asks
 * them as permission requests.
 */
export class UpdateTranslator {
  readonly #calls = new Map<string, { name: string }>();
  /** Calls announced and not finished yet. */
  readonly #open = new Set<string>();
  /** The output tail of each running call: a `tool_call_update`'s content replaces the last one's, so it is resent. */
  readonly #live = new Map<string, string>();

  /**
   * `plan`: the session's plan steps as last shown (kept by the session across prompts), so a done step's text is
   * told from its summary.
   */
  constructor(
    private readonly cwd: string,
    private readonly plan: { steps: readonly string[] } = { steps: [] },
  ) {}

  /**
   * The calls still open when the turn ended (cancelled, failed), marked failed so the client does not show them
   * running forever.
   */
  close(reason: string): SessionUpdate[] {
    const updates: SessionUpdate[] = [...this.#open].map((toolCallId) => ({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: 'failed',
      content: text(reason),
    }));
    this.#open.clear();
    this.#live.clear();
    return updates;
  }

  translate(event: AgentEvent): SessionUpdate[] {
    switch (event.type) {
      case 'token':
        // A subagent's text is its `task` call's result (shown as that call's output), not the agent's message.
        return event.text && !fromSubagent(event)
          ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } }]
          : [];
      case 'message':
        return AIMessage.isInstance(event.message) ? this.#announce(event.message) : [];
      case 'tool-start':
        this.#calls.set(event.id, { name: event.name });
        return [{ sessionUpdate: 'tool_call_update', toolCallId: event.id, status: 'in_progress' }];
      case 'tool-output':
        return this.#progress(event.id, event.text);
      case 'tool-rule':
        return this.#ruled(event);
      case 'tool-end':
        this.#live.delete(event.id);
        return this.#finish(event.id, event.name, event.ok, event.output);
      case 'model-tool': {
        const kind = knownKind(event.kind);
        const id = `model-${event.id}`;
        const content = event.output !== undefined ? { content: text(event.output) } : {};
        const known = this.#calls.has(id);
        this.#calls.set(id, { name: event.title });
        if (event.status === 'completed' || event.status === 'failed') this.#open.delete(id);
        else this.#open.add(id);
        return [
          known
            ? {
                sessionUpdate: 'tool_call_update',
                toolCallId: id,
                status: event.status,
                title: event.title,
                ...content,
              }
            : {
                sessionUpdate: 'tool_call',
                toolCallId: id,
                title: event.title,
                status: event.status,
                ...(kind ? { kind } : {}),
                ...(event.input !== undefined ? { rawInput: event.input } : {}),
                ...content,
              },
        ];
      }
      default:
        return [];
    }
  }

  /**
   * A running call's output so far, as the call's content: its last lines (at most `LIVE_TAIL_CHARS`), since ACP
   * replaces a call's content with each update rather than appending to it. The final update replaces it with the
   * result.
   */
  #progress(id: string, chunk: string): SessionUpdate[] {
    const tail = liveTail((this.#live.get(id) ?? '') + chunk);
    this.#live.set(id, tail);
    return [
      { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress', content: text(tail) },
    ];
  }

  /**
   * A call an approval rule decided: the client sees which rule, from which source, let it run or refused it — in
   * `_meta.birdie.rule` for clients that read it, and in the call's title for those that only show titles.
   */
  #ruled(event: Extract<AgentEvent, { type: 'tool-rule' }>): SessionUpdate[] {
    const rule = { effect: event.effect, pattern: event.pattern, source: event.source };
    return [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: event.id,
        title: `${event.name} (${ruleNote(rule, 'decided')})`,
        _meta: ruleMeta(rule),
      },
    ];
  }

  /** A reply's tool calls, announced as pending before anything runs or is asked. */
  #announce(message: AIMessage): SessionUpdate[] {
    return (message.tool_calls ?? []).flatMap((call) => {
      if (!call.id) return [];
      this.#calls.set(call.id, { name: call.name });
      this.#open.add(call.id);
      const args = (call.args ?? {}) as Record<string, unknown>;
      const locations = toolLocations(args, this.cwd);
      return [
        {
          sessionUpdate: 'tool_call',
          toolCallId: call.id,
          title: toolTitle(call.name, args),
          kind: toolKind(call.name),
          status: 'pending',
          rawInput: args,
          ...(locations.length ? { locations } : {}),
        },
      ];
    });
  }

  #finish(id: string, name: string, ok: boolean, output: string): SessionUpdate[] {
    this.#open.delete(id);
    const updates: SessionUpdate[] = [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: id,
        status: ok ? 'completed' : 'failed',
        content: text(output),
        rawOutput: { output },
      },
    ];
    const entries = ok && PLAN_TOOLS.has(name) ? planFromTodoOutput(output, this.plan.steps) : undefined;
    if (entries) {
      this.plan.steps = entries.map((entry) => entry.content);
      updates.push({ sessionUpdate: 'plan', entries });
    }
    return updates;
  }
}

/** How much of a running call's output an editor is shown while it runs. */
export const LIVE_TAIL_CHARS = 4_000;

function liveTail(text: string): string {
  if (text.length <= LIVE_TAIL_CHARS) return text;
  const cut = text.slice(text.length - LIVE_TAIL_CHARS);
  const nl = cut.indexOf('\n');
  return nl >= 0 && nl < 200 ? cut.slice(nl + 1) : cut;
}

/**
 * A stored conversation as the updates `session/load` replays: the user's messages, the answers, each tool call and
 * its result, and the last plan the todo skill showed.
 */
export function replayUpdates(messages: readonly BaseMessage[], cwd: string): SessionUpdate[] {
  const translator = new UpdateTranslator(cwd);
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    if (HumanMessage.isInstance(message)) {
      if (message.text)
        updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: message.text } });
    } else if (AIMessage.isInstance(message)) {
      if (message.text)
        updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: message.text } });
      updates.push(...translator.translate({ type: 'message', message }));
    } else if (ToolMessage.isInstance(message)) {
      updates.push(
        ...translator.translate({
          type: 'tool-end',
          id: message.tool_call_id,
          name: message.name ?? '',
          ok: message.status !== 'error',
          output: message.text,
          truncated: false,
          durationMs: 0,
        }),
      );
    }
  }
  return updates;
}
