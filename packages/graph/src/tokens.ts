import type { ToolDefinition } from '@langchain/core/language_models/base';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';

/**
 * The one way birdie counts tokens before sending: the compaction budget, the `usage.context` figure and the tests
 * that check what was sent all use it.
 *
 * - `tiktoken:<encoding>`: js-tiktoken with the model's encoding, for the models js-tiktoken knows (OpenAI's).
 *   Exact for the text; the server adds framing, so the margin is 10 %.
 * - `chars/4`: every other model (Claude, Gemini, Llama, … have no public encoder here): characters ÷ 4, which is
 *   about right for English prose and low for code, JSON and most other languages, so the margin is 25 %.
 *
 * On top of the margin, each message costs 4 tokens of framing (role, separators) and each tool call its name
 * and its JSON arguments.
 */
export interface TokenEstimator {
  /** `tiktoken:o200k_base`, `tiktoken:cl100k_base` or `chars/4`. */
  readonly name: string;
  /** Tokens of a text, margin included. */
  text(text: string): number;
  /** Tokens of one message as sent (its text, tool calls and framing), margin included; cached per message. */
  message(message: BaseMessage): number;
  messages(messages: readonly BaseMessage[]): number;
  /** Tokens of tool definitions as bound to the model (their JSON), margin included; cached per definition. */
  tools(definitions: readonly ToolDefinition[]): number;
}

/** Safety margins of the two estimators, as fractions added to the raw count. */
export const TOKEN_MARGINS = Object.freeze({ tiktoken: 0.1, chars: 0.25 });
/** Framing tokens per message (role and separators), added to every message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? '' : JSON.stringify(content);
  let out = '';
  for (const block of content) {
    if (typeof block === 'string') out += block;
    else if (block && typeof block === 'object' && typeof (block as { text?: unknown }).text === 'string')
      out += (block as { text: string }).text;
    else out += JSON.stringify(block);
  }
  return out;
}

/** Everything of a message the vendor receives as text: content, tool calls (name + JSON args), the call id. */
export function messageText(message: BaseMessage): string {
  let text = contentText(message.content);
  if (AIMessage.isInstance(message)) {
    for (const call of message.tool_calls ?? []) text += `\n${call.name} ${JSON.stringify(call.args ?? {})}`;
    for (const call of message.invalid_tool_calls ?? []) text += `\n${call.name ?? ''} ${call.args ?? ''}`;
  } else if (ToolMessage.isInstance(message)) text += `\n${message.tool_call_id}`;
  return text;
}

function estimator(name: string, raw: (text: string) => number, margin: number): TokenEstimator {
  const byMessage = new WeakMap<BaseMessage, number>();
  const byTool = new WeakMap<object, number>();
  const text = (value: string) => (value === '' ? 0 : Math.ceil(raw(value) * (1 + margin)));
  const message = (m: BaseMessage) => {
    let n = byMessage.get(m);
    if (n === undefined) {
      n = text(messageText(m)) + MESSAGE_OVERHEAD_TOKENS;
      byMessage.set(m, n);
    }
    return n;
  };
  return {
    name,
    text,
    message,
    messages(list) {
      let n = 0;
      for (const m of list) n += message(m);
      return n;
    },
    tools(definitions) {
      let n = 0;
      for (const d of definitions) {
        let t = byTool.get(d);
        if (t === undefined) {
          t = text(JSON.stringify(d));
          byTool.set(d, t);
        }
        n += t;
      }
      return n;
    },
  };
}

/** Characters ÷ 4 with its margin: for every model without a known encoding. */
export const CHARS_ESTIMATOR: TokenEstimator = estimator('chars/4', (t) => t.length / 4, TOKEN_MARGINS.chars);

const byEncoding = new Map<string, Promise<TokenEstimator>>();

/** Encodings by model name: the lookup imports js-tiktoken and throws for an unknown name, so it runs once per name. */
const encodingByModel = new Map<string, Promise<string | undefined>>();

/** The encoding js-tiktoken knows for a model name (`gpt-4o-mini`, `openai:gpt-4.1`), or undefined. */
export function encodingFor(modelName: string | undefined): Promise<string | undefined> {
  if (!modelName) return Promise.resolve(undefined);
  let found = encodingByModel.get(modelName);
  if (!found) {
    if (encodingByModel.size > 256) encodingByModel.clear();
    found = lookUpEncoding(modelName);
    encodingByModel.set(modelName, found);
  }
  return found;
}

async function lookUpEncoding(modelName: string): Promise<string | undefined> {
  const colon = modelName.indexOf(':');
  const vendor = colon > 0 ? modelName.slice(0, colon) : '';
  // Only OpenAI's models (also served by Azure) use these encodings; another vendor's `gpt-…` name is not one.
  if (vendor !== '' && vendor !== 'openai' && vendor !== 'azure') return undefined;
  const model = colon > 0 ? modelName.slice(colon + 1) : modelName;
  const { getEncodingNameForModel } = await import('js-tiktoken/lite');
  try {
    return getEncodingNameForModel(model as never);
  } catch {
    return undefined;
  }
}

async function loadEncoding(encoding: string): Promise<TokenEstimator> {
  const { Tiktoken } = await import('js-tiktoken/lite');
  const ranks =
    encoding === 'o200k_base'
      ? (await import('js-tiktoken/ranks/o200k_base')).default
      : encoding === 'cl100k_base'
        ? (await import('js-tiktoken/ranks/cl100k_base')).default
        : undefined;
  if (!ranks) return CHARS_ESTIMATOR;
  const coder = new Tiktoken(ranks);
  // Special-token text in a message is counted as plain text, as the vendor's API treats it.
  return estimator(`tiktoken:${encoding}`, (t) => coder.encode(t, [], []).length, TOKEN_MARGINS.tiktoken);
}

/**
 * The estimator for a model, by the name birdie gives it (`openai:gpt-4o-mini`, `anthropic:claude-…`): js-tiktoken
 * with the model's encoding where js-tiktoken knows the model, else `chars/4`. The encoder is built once per process
 * (about half a second for o200k_base), so call it early to have it ready.
 */
export async function tokenEstimator(modelName?: string): Promise<TokenEstimator> {
  const encoding = await encodingFor(modelName);
  if (!encoding) return CHARS_ESTIMATOR;
  let found = byEncoding.get(encoding);
  if (!found) {
    found = loadEncoding(encoding);
    byEncoding.set(encoding, found);
    found.catch(() => byEncoding.delete(encoding));
  }
  return found;
}
