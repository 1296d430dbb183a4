import { isSeq } from 'yaml';
import { z } from 'zod';
import { readTriggerField, TRIGGER_KEYS } from './agent-triggers.js';
import type { Reporter } from './diagnostics.js';
import type { Field } from './frontmatter.js';
import { modelProblem } from './model.js';
import { asText } from './own.js';
import { pointAt, type Source } from './source.js';
import { TOOL_NAME } from './tool-block.js';
import type { AgentDefinition, AgentPositions, SourcePoint } from './types.js';
import { splitAllowedTools, timeoutSchema, zodReason } from './values.js';

/** The configuration an agent file's frontmatter yields (everything of `AgentDefinition` but name, body and file). */
export type AgentConfig = Partial<
  Omit<AgentDefinition, 'name' | 'description' | 'body' | 'file' | 'digest' | 'positions'>
>;

export interface FieldContext {
  key: string;
  field: Field;
  /** Offset of the frontmatter's YAML text (YAML node ranges are relative to it). */
  base: number;
  source: Source;
  reporter: Reporter;
  config: AgentConfig;
  positions: AgentPositions;
}

type NameList = 'skills' | 'tools' | 'approve' | 'subagents' | 'handoffs';

/**
 * Keys an agent file may never set, compared without case, `_` and `-`: where requests go or with which key (those
 * would send the user's key elsewhere), and what runs. Each with the reason given in its message.
 */
const FORBIDDEN: ReadonlyMap<string, string> = new Map([
  ...['baseurl', 'baseuri', 'apibase', 'apiurl', 'endpoint', 'url', 'uri', 'host', 'proxy', 'server'].map(
    (key) => [key, 'would send requests (and your API key) to another address'] as const,
  ),
  ...['apikey', 'apitoken', 'token', 'secret', 'password', 'headers', 'auth'].map(
    (key) => [key, 'would set credentials'] as const,
  ),
  ...['vendor', 'provider', 'providers', 'config', 'modelconfig'].map(
    (key) =>
      [key, 'would configure a provider: an agent picks one with `model: vendor:model` or a tier'] as const,
  ),
  ...[
    'command',
    'cmd',
    'args',
    'module',
    'modules',
    'entrypoint',
    'script',
    'exec',
    'shell',
    'hooks',
    'mcpserver',
    'mcpservers',
    'env',
    'cwd',
    'plugin',
    'plugins',
    'require',
    'import',
  ].map((key) => [key, 'would run code'] as const),
]);

/** Why `key` may not appear in an agent file, or `undefined`. */
export function forbiddenReason(key: string): string | undefined {
  return FORBIDDEN.get(key.toLowerCase().replace(/[-_]/g, ''));
}

const at = (source: Source, offset: number): SourcePoint => {
  const { line, column } = pointAt(source, offset);
  return { line, column };
};

/**
 * A list of names: a YAML list, or one string of names separated by commas or blanks (`tools: read_file, grep`, as
 * other agent formats write it). Each item is checked by `check` and reported at its own place; duplicates are kept
 * once.
 */
function readNames(ctx: FieldContext, list: NameList, check: (name: string) => string | undefined): void {
  const { field, source, reporter } = ctx;
  const items: Array<{ value: unknown; start: number; end: number }> = [];
  if (Array.isArray(field.value)) {
    const nodes = isSeq(field.node) ? field.node.items : [];
    field.value.forEach((value, index) => {
      const range = (nodes[index] as { range?: [number, number, number] } | undefined)?.range;
      const [start, end] = range
        ? [ctx.base + range[0], ctx.base + range[1]]
        : [field.valueStart, field.valueEnd];
      items.push({ value, start, end });
    });
  } else if (typeof field.value === 'string') {
    // Offsets of each word in the written value; a quoted value with escapes falls back to the value's start.
    const written = source.text.slice(field.valueStart, field.valueEnd);
    let from = 0;
    // `approve` holds patterns with blanks and commas inside parentheses (`run_bash(npm test *)`).
    const words =
      list === 'approve' ? splitAllowedTools(field.value) : field.value.split(/[\s,]+/).filter(Boolean);
    for (const word of words) {
      const found = written.indexOf(word, from);
      const start = found < 0 ? field.valueStart : field.valueStart + found;
      if (found >= 0) from = found + word.length;
      items.push({ value: word, start, end: start + word.length });
    }
  } else {
    reporter.report(
      'invalid-type',
      `\`${ctx.key}\`: expected a list of names (\`[a, b]\`)`,
      field.valueStart,
      field.valueEnd,
    );
    return;
  }
  const names: string[] = [];
  const places: SourcePoint[] = [];
  for (const [index, item] of items.entries()) {
    const problem =
      typeof item.value !== 'string' || item.value.trim() === ''
        ? `expected a name, got ${typeof item.value === 'string' ? 'empty text' : `\`${asText(item.value)}\``}`
        : check(item.value.trim());
    if (problem) {
      reporter.report('invalid-type', `\`${ctx.key}[${index}]\`: ${problem}`, item.start, item.end);
      continue;
    }
    const name = (item.value as string).trim();
    if (names.includes(name)) continue;
    names.push(name);
    places.push(at(source, item.start));
  }
  ctx.config[list] = names;
  ctx.positions[list] = places;
}

const anyName = () => undefined;
const toolName = (name: string) =>
  TOOL_NAME.test(name)
    ? undefined
    : `\`${name}\` is not a tool name (letters, digits, \`_\` and \`-\`, at most 64)`;

/** An approval pattern's shape (`read_file`, `filesystem:*`, `run_bash(git status)`); the graph parses it fully. */
const APPROVE_PATTERN = /^(?:[A-Za-z0-9][A-Za-z0-9_.-]*:)?(?:\*|[A-Za-z0-9_][A-Za-z0-9_.-]*)(?:\(.*\))?$/s;
const approvePattern = (entry: string) =>
  APPROVE_PATTERN.test(entry) && !/[\u0000-\u001f\u007f]/.test(entry)
    ? undefined
    : `\`${entry}\` is not a tool name or an approval pattern (\`read_file\`, \`run_bash(git status)\`)`;

const maxTurnsSchema = z
  .number({ error: 'expected a whole number' })
  .int('expected a whole number')
  .min(1, 'must be at least 1');

const temperatureSchema = z
  .number({ error: 'expected a number from 0 to 2' })
  .min(0, 'must be from 0 to 2')
  .max(2, 'must be from 0 to 2');

const maxRetriesSchema = z
  .number({ error: 'expected a whole number from 0 to 10' })
  .int('expected a whole number from 0 to 10')
  .min(0, 'must be from 0 to 10')
  .max(10, 'must be from 0 to 10');

function readSchema<T>(ctx: FieldContext, schema: z.ZodType<T>, set: (value: T) => void): void {
  const parsed = schema.safeParse(ctx.field.value);
  if (parsed.success) set(parsed.data);
  else {
    ctx.reporter.report(
      'invalid-type',
      `\`${ctx.key}\`: ${zodReason(parsed.error)}`,
      ctx.field.valueStart,
      ctx.field.valueEnd,
    );
  }
}

function readModel(ctx: FieldContext): void {
  const { field, reporter } = ctx;
  const value = field.value;
  const problem =
    typeof value !== 'string'
      ? Array.isArray(value) || typeof value !== 'object'
        ? 'expected text: `vendor:model` or a tier name'
        : 'a mapping cannot be a model: an agent picks one by name (`vendor:model` or a tier); base URLs, keys and settings belong to your config'
      : modelProblem(value.trim());
  if (problem) {
    reporter.report('invalid-model', `\`model\`: ${problem}`, field.valueStart, field.valueEnd);
    return;
  }
  ctx.config.model = (value as string).trim();
  ctx.positions.model = at(ctx.source, field.valueStart);
}

/** Offsets of each item of a YAML list value, made absolute. */
function itemRanges(ctx: FieldContext): Array<{ start: number; end: number }> | undefined {
  if (!isSeq(ctx.field.node)) return undefined;
  return ctx.field.node.items.map((node) => {
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    return range
      ? { start: ctx.base + range[0], end: ctx.base + range[1] }
      : { start: ctx.field.valueStart, end: ctx.field.valueEnd };
  });
}

/** The trigger keys (`schedule`, `every`, `watch`, …), read into `triggers` (see agent-triggers.ts). */
const TRIGGER_FIELDS = Object.fromEntries(
  TRIGGER_KEYS.map((key) => [
    key,
    (ctx: FieldContext) => {
      ctx.config.triggers ??= {};
      readTriggerField(key, ctx.field, ctx.reporter, ctx.config.triggers, itemRanges(ctx));
    },
  ]),
);

/**
 * The agent keys besides `name` and `description`, each with its reader, the scheduler's trigger keys included; any
 * other key is an `unknown-key` info (or `forbidden-key`).
 */
export const AGENT_FIELDS: Readonly<Record<string, (ctx: FieldContext) => void>> = Object.freeze({
  model: readModel,
  skills: (ctx) => readNames(ctx, 'skills', anyName),
  tools: (ctx) => readNames(ctx, 'tools', toolName),
  approve: (ctx) => readNames(ctx, 'approve', approvePattern),
  subagents: (ctx) => readNames(ctx, 'subagents', anyName),
  handoffs: (ctx) => readNames(ctx, 'handoffs', anyName),
  progressive: (ctx) =>
    readSchema(ctx, z.boolean({ error: 'expected true or false' }), (v) => {
      ctx.config.progressive = v;
    }),
  max_turns: (ctx) =>
    readSchema(ctx, maxTurnsSchema, (v) => {
      ctx.config.maxTurns = v;
    }),
  timeout: (ctx) =>
    readSchema(ctx, timeoutSchema, (v) => {
      ctx.config.timeout = v;
    }),
  temperature: (ctx) =>
    readSchema(ctx, temperatureSchema, (v) => {
      ctx.config.temperature = v;
    }),
  max_retries: (ctx) =>
    readSchema(ctx, maxRetriesSchema, (v) => {
      ctx.config.maxRetries = v;
    }),
  ...TRIGGER_FIELDS,
});
