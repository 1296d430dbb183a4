import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, spawnModule } from '@birdie/test-utils';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import {
  type BaseCheckpointSaver,
  DeltaValue,
  END,
  MessagesDeltaValue,
  MessagesValue,
  messagesDeltaReducer,
  START,
  StateGraph,
  StateSchema,
} from '@langchain/langgraph';
import { unpack } from '../src/checkpointer/compress.js';

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

/** The built package, as the CLI loads it: child-process tests run it. */
export const DIST_URL = new URL('../dist/index.js', import.meta.url).href;

export type { Child } from '@birdie/test-utils';

/**
 * Runs `script` (an ES module body; `STORE` is the built package's URL) in a child `node`, under
 * `wrap` (a command prefix such as an `unshare -m sh -c …` mount namespace) if given.
 */
export function spawnScript(dir: string, script: string, args: string[] = [], wrap: string[] = []): Child {
  return spawnModule(dir, `const STORE = ${JSON.stringify(DIST_URL)};\n${script}`, args, wrap);
}

/** Runs a script to its end and parses each stdout line as JSON. */
export async function runScript(
  dir: string,
  script: string,
  args: string[] = [],
  wrap: string[] = [],
): Promise<{ code: number | null; out: any[]; stderr: string }> {
  const child = spawnScript(dir, script, args, wrap);
  const code = await child.exited;
  try {
    return { code, out: child.lines.map((l) => JSON.parse(l)), stderr: child.stderr() };
  } catch {
    throw new Error(`child printed non-JSON: ${child.lines.join('\n')}\n${child.stderr()}`);
  }
}

/** A prefix that runs a command in a private mount namespace where `dir` is a read-only bind mount (real even for root). */
export function readOnlyMount(dir: string): string[] {
  return [
    'unshare',
    '-m',
    'sh',
    '-c',
    'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && shift && exec "$@"',
    'sh',
    dir,
  ];
}

/** A prefix that runs a command with `dir` replaced by an empty tmpfs of `size` (e.g. `1m`), in a private mount namespace. */
export function smallDisk(dir: string, size: string): string[] {
  return [
    'unshare',
    '-m',
    'sh',
    '-c',
    `mount -t tmpfs -o size=${size},mode=0700 tmpfs "$1" && shift && exec "$@"`,
    'sh',
    dir,
  ];
}

/**
 * A copy of a packed record with one bit flipped where reading it must fail, as a failing disk or a stray write would
 * leave it. The checksum covers the decoded bytes, so a flip deflate never reads (its last byte's padding bits)
 * decodes to the same record — no damage at all; such positions are passed over, starting from the middle.
 */
export function flipVisibleBit(data: Uint8Array, mask = 0x04): Buffer {
  const out = Buffer.from(data);
  for (let k = 0; k < out.length; k += 1) {
    const i = (Math.floor(out.length / 2) + k) % out.length;
    out[i] = (out[i] ?? 0) ^ mask;
    try {
      unpack(out);
    } catch {
      return out;
    }
    out[i] = (out[i] ?? 0) ^ mask;
  }
  throw new Error('no single-bit flip of this record changes what it reads');
}
