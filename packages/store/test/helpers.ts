import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import {
  type BaseCheckpointSaver,
  DeltaValue,
  END,
  messagesDeltaReducer,
  MessagesDeltaValue,
  MessagesValue,
  START,
  StateGraph,
  StateSchema,
} from '@langchain/langgraph';

export function tempHome(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'birdie-store-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A chat graph whose "model" is scripted: every fifth turn it calls a tool first.
 * `delta` picks MessagesDeltaValue (what @birdie/graph uses) or the stock MessagesValue.
 */
export function chatGraph(checkpointer: BaseCheckpointSaver, delta: boolean | number = true) {
  const State = new StateSchema({ messages: messagesField(delta) });
  return new StateGraph(State)
    .addNode('agent', (state) => {
      const messages = state.messages as BaseMessage[];
      const last = messages.at(-1)!;
      const turn = messages.filter((m) => HumanMessage.isInstance(m)).length;
      if (HumanMessage.isInstance(last) && turn % 5 === 0) {
        return {
          messages: [
            new AIMessage({
              id: `ai-${turn}-call`,
              content: '',
              tool_calls: [{ id: `call_${turn}`, name: 'lookup', args: { query: `turn ${turn}` } }],
            }),
          ],
        };
      }
      return {
        messages: [new AIMessage({ id: `ai-${turn}`, content: `answer ${turn}: ${String(last.content)}` })],
      };
    })
    .addNode('tools', (state) => {
      const call = (state.messages.at(-1) as AIMessage).tool_calls![0]!;
      return {
        messages: [new ToolMessage({ tool_call_id: call.id!, content: `result for ${call.args.query}` })],
      };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) =>
      (state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END,
    )
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
}

/** `true`: MessagesDeltaValue; a number: the same with that snapshot frequency; `false`: stock. */
function messagesField(delta: boolean | number) {
  if (delta === true) return MessagesDeltaValue;
  if (delta === false) return MessagesValue;
  return new DeltaValue(MessagesDeltaValue.valueSchema, {
    inputSchema: MessagesDeltaValue.inputSchema,
    reducer: messagesDeltaReducer,
    snapshotFrequency: delta,
  });
}

/** Message type and content, for comparing histories across savers. */
export function summary(messages: BaseMessage[]): string[] {
  return messages.map(
    (m) => `${m.getType()}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
  );
}
