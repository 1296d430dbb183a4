// The benchmark's chat graph: a scripted agent (every fifth turn calls a tool) over a real StateGraph.
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { END, START, StateGraph, StateSchema } from '@langchain/langgraph';

// Deterministic text that compresses like prose, not like a repeated string.
const WORDS = (
  'the a of to and in is that for it on with as was at by an be this are from or have not but what all ' +
  'were when we there can your which their said if do will each about how up out them then she many some ' +
  'so these would other into has more her two like him see time could no make than first been its who now ' +
  'people my made over did down only way find use may water long little very after words called just where ' +
  'most know get through back much before go good new write our used me man too any day same right look ' +
  'think also around another came come work three word must because does part even place well such here ' +
  'take why things help put years different away again off went old number great tell men say small every ' +
  'found still between name should home big give air line set own under read last never us left end along ' +
  'while might next sound below saw something thought both few those always looked show large often together ' +
  'asked house world going want school important until form food keep children feet land side without boy ' +
  'checkpoint sqlite session graph message token model skill tool memory query result error timeout config'
).split(' ');
let seed = 42;
export function reseed() {
  seed = 42;
}
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
export function text(chars) {
  let out = '';
  while (out.length < chars) out += `${WORDS[Math.floor(random() * WORDS.length)]} `;
  return out.slice(0, chars).trimEnd();
}

export function buildGraph(checkpointer, messages) {
  return new StateGraph(new StateSchema({ messages }))
    .addNode('agent', (state) => {
      const last = state.messages.at(-1);
      const turn = state.messages.filter((m) => HumanMessage.isInstance(m)).length;
      if (HumanMessage.isInstance(last) && turn % 5 === 0) {
        return {
          messages: [
            new AIMessage({
              id: `run-${turn}-a`,
              content: '',
              tool_calls: [{ id: `call_${turn}`, name: 'search', args: { query: text(40) } }],
              usage_metadata: { input_tokens: 50 * turn, output_tokens: 20, total_tokens: 50 * turn + 20 },
            }),
          ],
        };
      }
      return {
        messages: [
          new AIMessage({
            id: `run-${turn}-b`,
            content: text(200),
            usage_metadata: { input_tokens: 50 * turn, output_tokens: 60, total_tokens: 50 * turn + 60 },
          }),
        ],
      };
    })
    .addNode('tools', (state) => {
      const call = state.messages.at(-1).tool_calls[0];
      return { messages: [new ToolMessage({ tool_call_id: call.id, name: call.name, content: text(200) })] };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => (state.messages.at(-1).tool_calls?.length ? 'tools' : END))
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
}

export function rawBytes(messages) {
  let n = 0;
  for (const m of messages) {
    n += Buffer.byteLength(typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
    for (const call of m.tool_calls ?? []) n += Buffer.byteLength(JSON.stringify(call.args));
  }
  return n;
}
