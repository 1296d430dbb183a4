import { bashScheme } from './bash.js';
import { EntrypointError } from './errors.js';
import { httpScheme } from './http.js';
import { nodeScheme } from './node.js';
import { pythonScheme } from './python.js';
import type { Entrypoint, ResolveContext, SchemeFactory } from './types.js';

const BUILT_IN: ReadonlyMap<string, SchemeFactory> = new Map<string, SchemeFactory>([
  ['bash', bashScheme],
  ['http', httpScheme],
  ['node', nodeScheme],
  ['python', pythonScheme],
]);

const registered = new Map<string, SchemeFactory>();

const SCHEME_NAME = /^[a-z][a-z0-9+.-]*$/;

/**
 * Adds (or replaces) an application-defined scheme. Built-in schemes cannot be replaced: their safety
 * properties are what the rest of birdie relies on.
 */
export function registerScheme(name: string, factory: SchemeFactory): void {
  if (!SCHEME_NAME.test(name)) {
    throw new EntrypointError(
      'bad-entrypoint',
      `'${name}' is not a valid scheme name (lower-case letters, digits, + . -)`,
    );
  }
  if (BUILT_IN.has(name))
    throw new EntrypointError('scheme-conflict', `'${name}' is a built-in scheme and cannot be replaced`);
  if (typeof factory !== 'function') throw new TypeError('registerScheme: factory must be a function');
  registered.set(name, factory);
}

/** Removes an application-defined scheme; returns whether it was registered. */
export function unregisterScheme(name: string): boolean {
  return registered.delete(name);
}

export function supportedSchemes(): string[] {
  return [...BUILT_IN.keys(), ...[...registered.keys()].sort()];
}

/** Parses `scheme:target` and builds a runnable entrypoint. Throws EntrypointError on a bad string. */
export function resolveEntrypoint(entrypoint: string, context: ResolveContext): Entrypoint {
  if (typeof entrypoint !== 'string' || !entrypoint.trim()) {
    throw new EntrypointError(
      'bad-entrypoint',
      'the entrypoint is empty; expected scheme:target (e.g. bash:ls {path})',
    );
  }
  if (!context || typeof context.skillDir !== 'string' || !context.skillDir) {
    throw new EntrypointError('bad-entrypoint', 'resolveEntrypoint needs context.skillDir');
  }
  const text = entrypoint.trim();
  const colon = text.indexOf(':');
  const scheme = colon > 0 ? text.slice(0, colon) : '';
  if (!SCHEME_NAME.test(scheme)) {
    throw new EntrypointError(
      'bad-entrypoint',
      `'${text}' does not start with scheme: (supported: ${supportedSchemes().join(', ')})`,
    );
  }
  const factory = BUILT_IN.get(scheme) ?? registered.get(scheme);
  if (!factory) {
    throw new EntrypointError(
      'unsupported-scheme',
      `scheme '${scheme}:' is not supported (supported: ${supportedSchemes()
        .map((s) => `${s}:`)
        .join(', ')})`,
    );
  }
  return factory(text.slice(colon + 1).trim(), { ...context, scheme, entrypoint: text });
}
