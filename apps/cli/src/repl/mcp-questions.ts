import type {
  McpElicitationRequest,
  McpElicitationResult,
  McpSamplingApproval,
  McpTurnHandlers,
} from '@birdie/graph';
import { fieldTextProblem, fieldTextValue, formFields } from '@birdie/runtime/elicitation-form';
import type { Io } from '../io.js';
import type { Style } from '@birdie/terminal/style';
import { visible } from '@birdie/terminal/terminal-text';

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
  opts.output.write(`${style('cyan', 'An MCP server asks:')} ${visible(request.message)}\n`);
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const field of formFields(request)) {
    const message = `${field.title}${field.description ? ` — ${visible(field.description)}` : ''}${field.required ? '' : ' (optional)'}`;
    const given = field.default;
    let answer: unknown;
    if (field.kind === 'many') {
      answer = await prompts.multiselect({
        ...opts,
        message,
        options: field.choices,
        required: field.atLeastOne === true,
        ...(Array.isArray(given) ? { initialValues: given.map(String) } : {}),
      });
    } else if (field.kind === 'boolean') {
      answer = await prompts.confirm({
        ...opts,
        message,
        ...(typeof given === 'boolean' ? { initialValue: given } : {}),
      });
    } else if (field.kind === 'choice') {
      answer = await prompts.select({
        ...opts,
        message,
        options: field.choices,
        ...(given !== undefined ? { initialValue: String(given) } : {}),
      });
    } else {
      answer = await prompts.text({
        ...opts,
        message,
        ...(given !== undefined ? { defaultValue: String(given) } : {}),
        validate: (value) => fieldTextProblem(field, value ?? ''),
      });
      if (typeof answer === 'string') answer = fieldTextValue(field, answer);
    }
    if (prompts.isCancel(answer)) return { action: 'cancel' };
    if (answer !== undefined) content[field.key] = answer as string | number | boolean | string[];
  }
  return { action: 'accept', content };
}
