import { analyseBash, bashScheme } from './bash.js';
import { builtinScheme } from './builtin.js';
import type { CodeTakingWarning } from './code-taking-commands.js';
import { analyseContainer } from './container.js';
import { EntrypointError } from './errors.js';
import { analyseGrpc } from './grpc.js';
import { analyseHttp, httpScheme } from './http.js';
import { nodeScheme } from './node.js';
import { pythonScheme } from './python.js';
import { redactUrlsIn } from './redact.js';
import type { EntrypointProblem, TargetAnalysis } from './target.js';
import type { Entrypoint, ResolveContext, SchemeContext, SchemeFactory } from './types.js';

const BUILT_IN: ReadonlyMap<string, SchemeFactory> = new Map<string, SchemeFactory>([
  ['bash', bashScheme],
  ['http', httpScheme],
  ['node', nodeScheme],
  ['python', pythonScheme],
  ['builtin', builtinScheme],
  ['container', fromAnalysis(analyseContainer)],
  ['grpc', fromAnalysis(analyseGrpc)],
]);

/** Built-in schemes that report every problem of a target (and its placeholders) without building anything. */
const ANALYSERS: ReadonlyMap<string, (target: string, context: SchemeContext) => TargetAnalysis> = new Map([
  ['bash', analyseBash],
  ['http', analyseHttp],
  ['container', analyseContainer],
  ['grpc', analyseGrpc],
]);

const registered = new Map<string, SchemeFactory>();

/** A factory that throws the first problem of an analysis (the built-in table needs one for every scheme). */
function fromAnalysis(analyse: (target: string, context: SchemeContext) => TargetAnalysis): SchemeFactory {
  return (target, context) => {
    const analysis = analyse(target, context);
    const problem = analysis.problems[0];
    if (problem) {
      throw new EntrypointError(
        problem.code,
        problem.message,
        problem.offset === undefined ? {} : { offset: problem.offset },
      );
    }
    return analysis.build!();
  };
}

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

/** Parses `scheme:target` and builds a runnable entrypoint. Throws the first problem `checkEntrypoint` would list. */
export function resolveEntrypoint(entrypoint: string, context: ResolveContext): Entrypoint {
  const { problems, build } = analyseEntrypoint(entrypoint, context);
  const problem = problems[0];
  if (problem?.error) throw problem.error; // a factory's own error, as it threw it
  if (problem) {
    throw new EntrypointError(
      problem.code,
      problem.message,
      problem.offset === undefined ? {} : { offset: problem.offset },
    );
  }
  return build!();
}

/**
 * Every problem of an entrypoint string, found without running anything (no process, no network, no import):
 * a malformed or unknown scheme, a `bash:` placeholder (or a variable holding one) where bash would evaluate it, an
 * `http:` URL with credentials, a `{placeholder}` that is not a property of the tool's schema. Offsets are into the
 * whole string. Cheap enough to run for every tool of every skill at load time.
 */
export function checkEntrypoint(entrypoint: string, context: ResolveContext): EntrypointProblem[] {
  return inspectEntrypoint(entrypoint, context).problems;
}

/**
 * `checkEntrypoint`'s problems, and the warnings of an entrypoint that loads: `bash:` commands that can run a value
 * as code (`code-taking-command`; such a tool asks for approval unless it declares `approval: never`). Offsets are
 * into the whole string.
 */
export function inspectEntrypoint(
  entrypoint: string,
  context: ResolveContext,
): { problems: EntrypointProblem[]; warnings: CodeTakingWarning[] } {
  const { problems, warnings = [] } = analyseEntrypoint(entrypoint, context);
  return {
    problems: problems.map(({ code, message, offset }) =>
      offset === undefined ? { code, message } : { code, message, offset },
    ),
    warnings,
  };
}

type Found = EntrypointProblem & { error?: EntrypointError };

function analyseEntrypoint(
  entrypoint: string,
  context: ResolveContext,
): { problems: Found[]; warnings?: CodeTakingWarning[]; build?: () => Entrypoint } {
  const fail = (code: Found['code'], message: string, offset?: number) => ({
    problems: [offset === undefined ? { code, message } : { code, message, offset }],
  });
  if (typeof entrypoint !== 'string' || !entrypoint.trim()) {
    return fail('bad-entrypoint', 'the entrypoint is empty; expected scheme:target (e.g. bash:ls {path})', 0);
  }
  if (!context || typeof context.skillDir !== 'string' || !context.skillDir) {
    return fail('bad-entrypoint', 'resolveEntrypoint needs context.skillDir');
  }
  const lead = entrypoint.length - entrypoint.trimStart().length;
  const text = entrypoint.trim();
  const colon = text.indexOf(':');
  const scheme = colon > 0 ? text.slice(0, colon) : '';
  if (!SCHEME_NAME.test(scheme)) {
    return fail(
      'bad-entrypoint',
      `'${text}' does not start with scheme: (supported: ${supportedSchemes().join(', ')})`,
      lead,
    );
  }
  const factory = BUILT_IN.get(scheme) ?? registered.get(scheme);
  if (!factory) {
    return fail(
      'unsupported-scheme',
      `scheme '${scheme}:' is not supported (supported: ${supportedSchemes()
        .map((s) => `${s}:`)
        .join(', ')})`,
      lead,
    );
  }
  const afterColon = text.slice(colon + 1);
  const target = afterColon.trim();
  const start = lead + colon + 1 + (afterColon.length - afterColon.trimStart().length);
  const schemeContext: SchemeContext = { ...context, scheme, entrypoint: text };
  const analyse = ANALYSERS.get(scheme);
  if (!analyse) {
    // node:, python:, builtin: and registered schemes: their factory is the check (factories must not run anything)
    try {
      const built = factory(target, schemeContext);
      return { problems: [], build: () => built };
    } catch (error) {
      if (!(error instanceof EntrypointError)) throw error;
      const offset = error.offset === undefined ? undefined : error.offset + start;
      return {
        problems: [
          { code: error.code, message: error.message, error, ...(offset === undefined ? {} : { offset }) },
        ],
      };
    }
  }
  const analysis = analyse(target, schemeContext);
  const problems: Found[] = analysis.problems.map((p) =>
    p.offset === undefined ? p : { ...p, offset: p.offset + start },
  );
  problems.push(...unknownPlaceholders(analysis.placeholders, context, start, text));
  const warnings = (analysis.warnings ?? []).map((w) => ({
    ...w,
    message: `${redactUrlsIn(text)}: ${w.message}`,
    offset: w.offset + start,
  }));
  return { problems, warnings, ...(analysis.build ? { build: analysis.build } : {}) };
}

/** `{x}` where the tool's schema has no property `x`: the model is never asked for it, so the call cannot work. */
function unknownPlaceholders(
  placeholders: readonly { name: string; offset: number }[],
  context: ResolveContext,
  start: number,
  entrypoint: string,
): EntrypointProblem[] {
  if (!context.schema) return [];
  const properties = context.schema.properties ?? {};
  const problems: EntrypointProblem[] = [];
  let seen: Set<string> | undefined;
  for (const { name, offset } of placeholders) {
    if (Object.hasOwn(properties, name) || seen?.has(name)) continue;
    seen ??= new Set();
    seen.add(name);
    const known = Object.keys(properties);
    problems.push({
      code: 'unknown-placeholder',
      message: `${redactUrlsIn(entrypoint)}: {${name}} is not a property of the tool's schema (${known.length > 0 ? `properties: ${known.join(', ')}` : 'it has no properties'}), so the model never sends it`,
      offset: offset + start,
    });
  }
  return problems;
}
