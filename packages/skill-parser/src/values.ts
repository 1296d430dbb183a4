import { z } from 'zod';

/** One readable line out of a zod error: the first issue, with its path. */
export function zodReason(error: unknown): string {
  const issue = (error as z.ZodError).issues?.[0];
  if (!issue) return 'invalid value';
  const path = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return `${path}${issue.message}`;
}

const text = z.string({ error: 'expected text' });
/** Scalars in lists are kept as text (`tags: [2024]` → `"2024"`). */
const scalarText = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const textList = z.array(scalarText, { error: 'expected a list of strings' });

export const fieldSchemas = {
  name: text.trim().min(1, 'must not be empty'),
  description: text.trim().min(1, 'must not be empty'),
  // `version: 1.0` is a YAML number; the source text is used instead (see parse-skill.ts).
  version: z.union([z.string(), z.number()], { error: 'expected a version string' }).transform(String),
  tags: textList,
  tool_tags: textList,
  triggers: textList,
  enabled_by_default: z.boolean({ error: 'expected true or false' }),
  always_inject: z.boolean({ error: 'expected true or false' }),
  license: text,
  compatibility: text,
  metadata: z.record(z.string(), z.unknown(), { error: 'expected a mapping' }),
  'allowed-tools': z.union([z.string(), textList], { error: 'expected a string or a list of strings' }),
} as const;

export type KnownField = keyof typeof fieldSchemas | 'mcp_server' | 'allowed_tools';

export const timeoutSchema = z.number({ error: 'expected a number of seconds' }).positive('must be positive');
export const retriesSchema = z
  .number({ error: 'expected a whole number' })
  .int('expected a whole number')
  .min(0, 'must be ≥ 0');
/** `true` / `false` are accepted as `required` / `never`. */
export const approvalSchema = z.union(
  [z.enum(['required', 'never']), z.boolean().transform((v) => (v ? 'required' : 'never'))],
  { error: 'expected `required` or `never`' },
);

/**
 * Splits Agent Skills `allowed-tools` ("Bash(git add:*) Read, Grep") on blanks and commas outside parentheses.
 */
export function splitAllowedTools(value: string | string[]): string[] {
  if (Array.isArray(value)) return value.map((v) => v.trim()).filter(Boolean);
  const out: string[] = [];
  let depth = 0;
  let word = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (word) out.push(word);
      word = '';
    } else word += ch;
  }
  if (word) out.push(word);
  return out;
}
