import { z } from 'zod';
import { ProviderError } from '../errors.js';

export interface ScriptedToolCall {
  name: string;
  args?: Record<string, unknown>;
  /** Default: a fresh `call_…` id. */
  id?: string;
}

/** One reply of the scripted model: text, tool calls (or both), or a simulated vendor failure. */
export interface ScriptedReply {
  /** Regular expression (case-insensitive) the last human message must match for this reply to be used. */
  match?: string;
  text?: string;
  tool_calls?: ScriptedToolCall[];
  /** Stream this reply token by token (default: the script's `stream`, which defaults to true). */
  stream?: boolean;
  /** Wait this long before each streamed token: a slow model, for demos and for cancelling mid-answer in tests. */
  token_delay_ms?: number;
  /** Override the estimated token counts. */
  usage?: { input_tokens?: number; output_tokens?: number };
  /** Simulate an HTTP failure: 429/5xx are retried like a real vendor (max_retries), others fail at once. */
  error?: { status: number; message?: string; retry_after?: number };
}

export interface Script {
  replies: ScriptedReply[];
  stream?: boolean;
}

const toolCallSchema = z.strictObject({
  name: z
    .string({ error: 'must be a string' })
    .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be 1–64 letters, digits, _ or -' }),
  args: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).optional(),
  id: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }).optional(),
});

const replySchema = z
  .strictObject({
    match: z
      .string({ error: 'must be a string' })
      .refine(isRegExp, { error: 'must be a valid regular expression' })
      .optional(),
    text: z.string({ error: 'must be a string' }).optional(),
    tool_calls: z
      .array(toolCallSchema, { error: 'must be an array' })
      .min(1, { error: 'must not be empty' })
      .optional(),
    stream: z.boolean({ error: 'must be true or false' }).optional(),
    token_delay_ms: z
      .number({ error: 'must be a number of milliseconds' })
      .int({ error: 'must be a whole number of milliseconds' })
      .min(0, { error: 'must not be negative' })
      .max(60_000, { error: 'must be at most 60000' })
      .optional(),
    usage: z
      .strictObject({
        input_tokens: z.number().int().min(0, { error: 'must be a non-negative integer' }).optional(),
        output_tokens: z.number().int().min(0, { error: 'must be a non-negative integer' }).optional(),
      })
      .optional(),
    error: z
      .strictObject({
        status: z.number().int().min(400, { error: 'must be an HTTP error status (400–599)' }).max(599, {
          error: 'must be an HTTP error status (400–599)',
        }),
        message: z.string().optional(),
        retry_after: z.number().min(0, { error: 'must be seconds (≥ 0)' }).optional(),
      })
      .optional(),
  })
  .refine(
    (reply) => reply.text !== undefined || reply.tool_calls !== undefined || reply.error !== undefined,
    {
      error: 'needs "text", "tool_calls" or "error"',
    },
  )
  .refine(
    (reply) => reply.error === undefined || (reply.text === undefined && reply.tool_calls === undefined),
    {
      error: '"error" cannot be combined with "text" or "tool_calls"',
    },
  );

const scriptSchema = z.union(
  [
    z.array(replySchema),
    z.strictObject({
      replies: z.array(replySchema, { error: 'must be an array' }),
      stream: z.boolean().optional(),
    }),
  ],
  { error: 'must be an array of replies or an object with "replies"' },
);

function isRegExp(source: string): boolean {
  try {
    new RegExp(source, 'i');
    return true;
  } catch {
    return false;
  }
}

/** Validates a script (array of replies, or `{ replies, stream }`); `where` names it in errors. */
export function parseScript(value: unknown, where = 'script', file?: string): Script {
  // Validate the union's branch the author meant, so the error points at the real field.
  const result = Array.isArray(value)
    ? z.array(replySchema).safeParse(value)
    : value !== null && typeof value === 'object'
      ? (scriptSchema.options[1] as z.ZodType).safeParse(value)
      : scriptSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = issue.path.map(String).join('.');
    const field = Array.isArray(value) && path !== '' ? `replies.${path}` : path;
    const what =
      issue.code === 'unrecognized_keys'
        ? `unknown field ${JSON.stringify(issue.keys[0])}`
        : `${field === '' ? 'the script' : field} ${issue.message}`;
    throw new ProviderError(
      'script-invalid',
      `Invalid ${where}: ${what}${issue.code === 'unrecognized_keys' && field ? ` in ${field}` : ''}`,
      {
        file,
        field: field || undefined,
      },
    );
  }
  const data = result.data as ScriptedReply[] | Script;
  return Array.isArray(data) ? { replies: data } : data;
}
