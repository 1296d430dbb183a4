import type {
  McpElicitationRequest,
  McpElicitationResult,
  McpSamplingApproval,
  McpTurnHandlers,
} from '@birdie/graph';
import type { Io } from '../io.js';
import type { Style } from '../render/style.js';
import { visible } from './approval-box.js';

/** Runs one question with the turn's live output paused (the same pause as an approval question). */
export type Paused = <T>(ask: () => Promise<T>) => Promise<T>;

const SHOWN = 1200;

function clip(text: string): string {
  const line = visible(text);
  return line.length > SHOWN ? `${line.slice(0, SHOWN)}…` : line;
}

/** What the user sees of a sampling request: the server's system prompt and messages, or the model's answer. */
export function samplingQuestion(ask: McpSamplingApproval): string {
  if (ask.answer !== undefined)
    return `The model answered MCP server ${ask.server}:\n${clip(ask.answer)}\nSend this answer to ${ask.server}?`;
  const said = ask.request.messages.map((m) => {
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    const text = blocks
      .map((b) => ('text' in b && typeof b.text === 'string' ? b.text : `[${b.type}]`))
      .join(' ');
    return `${m.role}: ${clip(text)}`;
  });
  const system = ask.request.systemPrompt ? [`system: ${clip(ask.request.systemPrompt)}`] : [];
  return `MCP server ${ask.server} asks the model (up to ${ask.request.maxTokens} tokens):\n${[...system, ...said].join('\n')}\nSend this to the model?`;
}

type Choice = { const: unknown; title?: string };
type Property = {
  type?: string;
  items?: { enum?: unknown[]; anyOf?: Choice[]; oneOf?: Choice[] };
  minItems?: number;
  title?: string;
  description?: string;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: Array<{ const: unknown; title?: string }>;
  default?: unknown;
};

/**
 * The REPL's answers to MCP servers: a yes/no question for sampling (the request, then the answer), and a clack form
 * for elicitation, one prompt a field of the server's schema. Ctrl+C (or Esc) at a form cancels it; at a sampling
 * question it declines.
 */
export function replMcpHandlers(io: Io, style: Style, paused: Paused): McpTurnHandlers {
  const opts = { input: io.stdin, output: io.stdout };
  // One question at a time, even when two calls ask at once.
  let queue: Promise<unknown> = Promise.resolve();
  const one = <T>(ask: () => Promise<T>): Promise<T> => {
    const next = queue.then(() => paused(ask));
    queue = next.catch(() => {});
    return next;
  };
  return {
    approveSampling: (ask) =>
      one(async () => {
        const prompts = await import('@clack/prompts');
        const answer = await prompts.confirm({
          ...opts,
          message: samplingQuestion(ask),
          initialValue: false,
        });
        return answer === true;
      }),
    elicit: (request) => one(() => elicitForm(request, opts, style)),
  };
}

async function elicitForm(
  request: McpElicitationRequest,
  opts: { input: Io['stdin']; output: Io['stdout'] },
  style: Style,
): Promise<McpElicitationResult> {
  const prompts = await import('@clack/prompts');
  const schema = (
    request as { requestedSchema?: { properties?: Record<string, Property>; required?: string[] } }
  ).requestedSchema;
  opts.output.write(`${style('cyan', 'An MCP server asks:')} ${visible(request.message)}\n`);
  const required = new Set(schema?.required ?? []);
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [key, property] of Object.entries(schema?.properties ?? {})) {
    const label = `${property.title ?? key}${property.description ? ` — ${visible(property.description)}` : ''}${required.has(key) ? '' : ' (optional)'}`;
    const choices = property.oneOf
      ? property.oneOf.map((o) => ({ value: String(o.const), label: o.title ?? String(o.const) }))
      : property.enum?.map((v, i) => ({ value: String(v), label: property.enumNames?.[i] ?? String(v) }));
    let answer: unknown;
    const many = property.type === 'array' ? (property.items?.anyOf ?? property.items?.oneOf) : undefined;
    const manyChoices =
      many?.map((o) => ({ value: String(o.const), label: o.title ?? String(o.const) })) ??
      (property.type === 'array'
        ? property.items?.enum?.map((v) => ({ value: String(v), label: String(v) }))
        : undefined);
    if (manyChoices) {
      answer = await prompts.multiselect({
        ...opts,
        message: label,
        options: manyChoices,
        required: (property.minItems ?? 0) > 0 || required.has(key),
        ...(Array.isArray(property.default) ? { initialValues: property.default.map(String) } : {}),
      });
    } else if (property.type === 'boolean') {
      answer = await prompts.confirm({
        ...opts,
        message: label,
        ...(typeof property.default === 'boolean' ? { initialValue: property.default } : {}),
      });
    } else if (choices && choices.length > 0) {
      answer = await prompts.select({
        ...opts,
        message: label,
        options: choices,
        ...(property.default !== undefined ? { initialValue: String(property.default) } : {}),
      });
    } else {
      const numeric = property.type === 'number' || property.type === 'integer';
      answer = await prompts.text({
        ...opts,
        message: label,
        ...(property.default !== undefined ? { defaultValue: String(property.default) } : {}),
        validate: (value) => {
          const text = value ?? '';
          if (text === '')
            return required.has(key) && property.default === undefined ? 'required' : undefined;
          if (numeric && !Number.isFinite(Number(text))) return 'a number, please';
          if (property.type === 'integer' && !Number.isInteger(Number(text))) return 'a whole number, please';
          return undefined;
        },
      });
      if (typeof answer === 'string') {
        if (answer === '') answer = property.default;
        else if (numeric) answer = Number(answer);
      }
    }
    if (prompts.isCancel(answer)) return { action: 'cancel' };
    if (answer !== undefined) content[key] = answer as string | number | boolean | string[];
  }
  return { action: 'accept', content };
}
