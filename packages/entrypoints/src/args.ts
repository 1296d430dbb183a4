import { EntrypointError } from './errors.js';
import type { JsonSchemaObjectLike } from './types.js';

/**
 * Looks up an argument, falling back to the schema's `default`. `null` counts as absent: models often send
 * null for an optional argument they mean to omit.
 */
export function argumentValue(
  args: Record<string, unknown>,
  name: string,
  schema: JsonSchemaObjectLike | undefined,
): unknown {
  const given = Object.hasOwn(args, name) ? args[name] : undefined;
  if (given !== undefined && given !== null) return given;
  const fallback = schema?.properties?.[name]?.default;
  if (fallback !== undefined && fallback !== null) return fallback;
  throw new EntrypointError(
    'missing-argument',
    `missing argument '${name}' (and the schema gives no default)`,
  );
}

/** Fills defaults for every schema property the caller left out, keeping the caller's other keys. */
export function withDefaults(
  args: Record<string, unknown>,
  schema: JsonSchemaObjectLike | undefined,
): Record<string, unknown> {
  const properties = schema?.properties;
  if (!properties) return args;
  let out: Record<string, unknown> | undefined;
  for (const [name, property] of Object.entries(properties)) {
    const value = args[name];
    if ((value === undefined || value === null) && property?.default !== undefined) {
      out ??= { ...args };
      out[name] = property.default;
    }
  }
  return out ?? args;
}

/** Text form of an argument: strings as they are, numbers/booleans via String(), everything else as JSON. */
export function argumentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value) ?? '';
}

/** Linux refuses a single argv word longer than MAX_ARG_STRLEN (32 pages). */
export const MAX_ARG_BYTES = 128 * 1024 - 1;

export function processArgumentText(name: string, value: unknown): string {
  const text = argumentText(value);
  if (text.includes('\0')) {
    throw new EntrypointError(
      'bad-argument',
      `argument '${name}' contains a NUL byte, which no process can receive`,
    );
  }
  if (Buffer.byteLength(text) > MAX_ARG_BYTES) {
    throw new EntrypointError(
      'bad-argument',
      `argument '${name}' is ${Buffer.byteLength(text)} bytes; a process argument may hold at most ${MAX_ARG_BYTES}`,
    );
  }
  return text;
}
