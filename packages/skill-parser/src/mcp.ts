import { isAbsolute, join, posix, resolve } from 'node:path';
import { z } from 'zod';
import type { Reporter } from './diagnostics.js';
import { childRange, type Field } from './frontmatter.js';
import { asText, getOwn, isRecord, setOwn } from './own.js';
import type { McpServerConfig } from './types.js';
import { timeoutSchema, zodReason } from './values.js';

const scalarText = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const stringMapSchema = z.record(z.string(), scalarText, { error: 'expected a mapping of names to values' });

/** zod checked the values; the map is rebuilt from the authored one so that every key stays an own property. */
function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(value)) for (const [key, item] of Object.entries(value)) setOwn(out, key, String(item));
  return out;
}

/** What a value is, for "must be text (got a number)". */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return typeof value === 'number' ? 'a number' : typeof value === 'boolean' ? 'true/false' : typeof value;
}

const stdio = z.object({
  command: z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'stdio needs `command`' : `must be text (got ${kindOf(issue.input)})`,
    })
    .trim()
    .min(1, 'stdio needs `command`'),
  args: z.array(scalarText, { error: 'expected a list of arguments' }).default([]),
  env: stringMapSchema.optional(),
  cwd: z.string({ error: 'expected a path' }).optional(),
  timeout: timeoutSchema.optional(),
});

const remote = z.object({
  url: z
    .string({ error: 'needs `url`' })
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'expected an http(s) URL'),
  headers: stringMapSchema.optional(),
  timeout: timeoutSchema.optional(),
});

const TRANSPORTS = new Map<string, McpServerConfig['transport']>([
  ['stdio', 'stdio'],
  ['sse', 'sse'],
  ['streamable_http', 'streamable_http'],
  ['streamable-http', 'streamable_http'],
  ['http', 'streamable_http'],
]);
const KEYS = {
  stdio: new Set(['transport', 'command', 'args', 'env', 'cwd', 'timeout']),
  remote: new Set(['transport', 'url', 'headers', 'timeout']),
};

/**
 * An argument is a path inside the skill folder — and is made absolute — when it starts with `./`, or when it names a
 * file of the folder (`resources`, known when the folder was listed). Flags (`-y`), package names and anything else
 * stay as written.
 */
export function resolveArg(arg: string, dir: string, resources: ReadonlySet<string>): string {
  if (arg.startsWith('-') || isAbsolute(arg)) return arg;
  if (arg.startsWith('./')) return join(dir, arg);
  const normal = posix.normalize(arg.replaceAll('\\', '/'));
  return resources.has(normal) ? join(dir, normal) : arg;
}

/**
 * A command written as a relative path (`./server.sh`, `bin/server`) is the skill's own program: resolved against
 * the folder, not against whatever directory birdie happens to run in (which could hold a different `server.sh`).
 * Bare names (`node`, `npx`, `python3`) are looked up on PATH as usual.
 */
function resolveCommand(command: string, dir: string): string {
  return !isAbsolute(command) && /[\\/]/.test(command) ? join(dir, command) : command;
}

export function parseMcpServer(
  field: Field,
  base: number,
  dir: string,
  resources: ReadonlySet<string>,
  reporter: Reporter,
): McpServerConfig | undefined {
  const whole: [number, number] = [field.keyStart, field.keyEnd];
  const value = field.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    reporter.report(
      'invalid-mcp-server',
      '`mcp_server` must be a mapping (transport, command/args or url, …)',
      ...whole,
    );
    return undefined;
  }
  const raw = value as Record<string, unknown>;
  const has = (key: string) => Object.hasOwn(raw, key);
  const named = getOwn(raw, 'transport') ?? (has('url') && !has('command') ? 'streamable_http' : 'stdio');
  const transport = typeof named === 'string' ? TRANSPORTS.get(named.toLowerCase()) : undefined;
  if (!transport) {
    const at = childRange(field.node, 'transport', base, whole).value;
    reporter.report(
      'invalid-mcp-server',
      `Unknown MCP transport \`${asText(named)}\` (stdio, sse, streamable_http or http)`,
      ...at,
    );
    return undefined;
  }
  const known = transport === 'stdio' ? KEYS.stdio : KEYS.remote;
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      const at = childRange(field.node, key, base, whole).key;
      reporter.report(
        'unknown-key',
        `\`mcp_server.${key}\` is not used by the ${transport} transport and is ignored`,
        ...at,
      );
    }
  }
  const parsed = (transport === 'stdio' ? stdio : remote).safeParse(raw);
  if (!parsed.success) {
    // Every key's problem at once (the first per key), each at its value: one edit/check round fixes them all.
    const seen = new Set<string>();
    for (const issue of parsed.error.issues) {
      const key = issue.path[0] === undefined ? '' : String(issue.path[0]);
      if (seen.has(key)) continue;
      seen.add(key);
      const at = key === '' || !has(key) ? whole : childRange(field.node, key, base, whole).value;
      reporter.report('invalid-mcp-server', `\`mcp_server\`: ${zodReason({ issues: [issue] })}`, ...at);
    }
    return undefined;
  }
  if (transport === 'stdio') {
    const data = parsed.data as z.infer<typeof stdio>;
    return {
      transport,
      command: resolveCommand(data.command, dir),
      args: data.args.map((arg) => resolveArg(arg, dir, resources)),
      ...(data.env ? { env: stringMap(getOwn(raw, 'env')) } : {}),
      ...(data.cwd !== undefined ? { cwd: resolve(dir, data.cwd) } : {}),
      ...(data.timeout !== undefined ? { timeout: data.timeout } : {}),
    };
  }
  const data = parsed.data as z.infer<typeof remote>;
  return {
    transport,
    url: data.url,
    ...(data.headers ? { headers: stringMap(getOwn(raw, 'headers')) } : {}),
    ...(data.timeout !== undefined ? { timeout: data.timeout } : {}),
  };
}
