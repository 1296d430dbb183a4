import { z } from 'zod';

/** One readable line out of a zod error: the first issue, with its path. */
export function zodReason(error: unknown): string {
  const issue = (error as z.ZodError).issues?.[0];
  if (!issue) return 'invalid value';
  const path = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return `${path}${issue.message}`;
}

/** Scalars in lists are kept as text (`tags: [2024]` → `"2024"`). */
const scalarText = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const textList = z.array(scalarText, { error: 'expected a list of strings' });

/** birdie's own frontmatter fields (the Agent Skills ones are read by spec-fields.ts). */
export const fieldSchemas = {
  // `version: 1.0` is a YAML number; the source text is used instead (see parse-skill.ts).
  version: z.union([z.string(), z.number()], { error: 'expected a version string' }).transform(String),
  tags: textList,
  tool_tags: textList,
  triggers: textList,
  enabled_by_default: z.boolean({ error: 'expected true or false' }),
  always_inject: z.boolean({ error: 'expected true or false' }),
} as const;

/**
 * The longest timeout, in seconds, a Node timer can wait: 2^31-1 ms (about 24.8 days). A longer one would fire at
 * once (Node's timer overflows to 1 ms), so it is refused here with its position rather than run for 1 ms.
 */
export const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export const timeoutSchema = z
  .number({ error: 'expected a number of seconds' })
  .positive('must be positive')
  .max(
    MAX_TIMEOUT_SECONDS,
    `must be at most ${MAX_TIMEOUT_SECONDS} seconds (about 24 days), the longest a timer can wait`,
  );
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
