import {
  type Alias,
  Composer,
  CST,
  type Document,
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  Lexer,
  type Node,
  Parser,
  type YAMLError,
  YAMLParseError,
} from 'yaml';
import type { Reporter } from './diagnostics.js';
import { MAX_YAML_ALIAS_COUNT, MAX_YAML_DEPTH } from './limits.js';
import { lineEnd } from './source.js';

/**
 * What every YAML read in this package uses: YAML 1.2's core schema whatever the text says, and no tag (`!!binary`,
 * `!!timestamp`, `!!set`, `!!js/function`, …) turns a value into anything but plain JSON. `logLevel: 'error'` keeps
 * `yaml` from printing warnings through `process.emitWarning`. Duplicate keys are errors, found by `duplicateKeys`:
 * `yaml`'s own check compares each key with every key before it, which takes seconds for a few thousand keys.
 */
const OPTIONS = {
  prettyErrors: false,
  uniqueKeys: false,
  schema: 'core',
  resolveKnownTags: false,
  logLevel: 'error',
} as const;

/** A composed document, or where its nesting first went past the limit. */
export type Composed =
  | { ok: true; doc: Document.Parsed; hasAliases: boolean }
  | { ok: false; deepAt: number };

/**
 * Parses `text` into a document, checking the nesting depth on the concrete syntax tree first (the `yaml` parser is
 * iterative; its composer is not). Syntax errors are left in `doc.errors`. Flow collections are counted on the lexemes
 * before parsing at all: the parser slows down with every open flow level (a megabyte of `[` takes it tens of
 * seconds), so past the limit only the text up to that point is parsed, to find the exact place.
 */
export function composeYaml(text: string): Composed {
  const lexemes = Array.from(new Lexer().lex(text));
  const flowDeep = flowTooDeep(lexemes);
  const parser = new Parser();
  const tokens =
    flowDeep >= 0 ? Array.from(parser.parse(text.slice(0, flowDeep + 1))) : parseLexemes(parser, lexemes);
  const { deepAt, hasAliases } = inspectTokens(tokens);
  if (deepAt >= 0 || flowDeep >= 0) return { ok: false, deepAt: deepAt >= 0 ? deepAt : flowDeep };
  const composer = new Composer(OPTIONS);
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(tokens, true, text.length)) {
    if (!doc) doc = next;
    else {
      doc.errors.push(
        new YAMLParseError(
          [next.range[0], next.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents',
        ),
      );
      break;
    }
  }
  doc!.errors.push(...duplicateKeys(doc!));
  return { ok: true, doc: doc!, hasAliases };
}

/**
 * The errors `yaml` reports with `uniqueKeys: true` (same code, same place: the start of the repeated key; scalar keys
 * compare by value, others never match), in one pass with a set per mapping.
 */
function duplicateKeys(doc: Document.Parsed): YAMLParseError[] {
  const errors: YAMLParseError[] = [];
  const stack: unknown[] = doc.contents ? [doc.contents] : [];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isPair(node)) stack.push(node.value, node.key);
    else if (isCollection(node)) {
      const seen = isMap(node) ? new Set<unknown>() : undefined;
      for (const item of node.items) {
        stack.push(item);
        const key = isPair(item) ? item.key : undefined;
        if (!seen || !isScalar(key) || Number.isNaN(key.value)) continue;
        if (seen.has(key.value)) {
          const start = key.range?.[0] ?? 0;
          errors.push(new YAMLParseError([start, start + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
        } else seen.add(key.value);
      }
    }
  }
  return errors.sort((a, b) => a.pos[0] - b.pos[0]);
}

/** What `Parser.parse` does with the lexemes of a whole text. */
function parseLexemes(parser: Parser, lexemes: readonly string[]): CST.Token[] {
  const tokens: CST.Token[] = [];
  for (const lexeme of lexemes) for (const token of parser.next(lexeme)) tokens.push(token);
  for (const token of parser.end()) tokens.push(token);
  return tokens;
}

/** Lexemes that stand for no source text (the parser does not advance its offset for them). */
const MARKERS = new Set([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

/** Offset of the flow indicator (`[`, `{`) that opens more than `MAX_YAML_DEPTH` flow levels, or -1. */
function flowTooDeep(lexemes: readonly string[]): number {
  let offset = 0;
  let depth = 0;
  for (const lexeme of lexemes) {
    if (lexeme === '[' || lexeme === '{') {
      if (++depth > MAX_YAML_DEPTH) return offset;
    } else if ((lexeme === ']' || lexeme === '}') && depth > 0) depth--;
    if (!MARKERS.has(lexeme)) offset += lexeme.length;
  }
  return -1;
}

/** Offset of the first collection deeper than `MAX_YAML_DEPTH` (or -1), and whether any alias appears. */
function inspectTokens(tokens: CST.Token[]): { deepAt: number; hasAliases: boolean } {
  let hasAliases = false;
  // Depth-first, children pushed in reverse so tokens come off the stack in source order.
  const stack: Array<[CST.Token, number]> = tokens
    .map((token) => [token, 0] as [CST.Token, number])
    .reverse();
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    if (token.type === 'alias') hasAliases = true;
    else if (token.type === 'document') {
      if (token.value) stack.push([token.value, depth]);
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > MAX_YAML_DEPTH) return { deepAt: token.offset, hasAliases };
      for (let i = token.items.length - 1; i >= 0; i--) {
        const item = token.items[i]! as { key?: CST.Token | null; value?: CST.Token };
        if (item.value) stack.push([item.value, depth + 1]);
        if (item.key) stack.push([item.key, depth + 1]);
      }
    }
  }
  return { deepAt: -1, hasAliases };
}

/**
 * Parses YAML and reports, at absolute offsets (`base` + offset in `text`), nesting past the limit and every syntax
 * error. Returns the document, or `undefined` when it is unusable.
 */
export function parseYaml(
  text: string,
  base: number,
  reporter: Reporter,
  label = 'YAML',
): { doc: Document.Parsed; hasAliases: boolean } | undefined {
  const composed = composeYaml(text);
  if (!composed.ok) {
    const start = base + composed.deepAt;
    reporter.report(
      'yaml-too-deep',
      `${label} nests deeper than ${MAX_YAML_DEPTH} levels`,
      start,
      lineEnd(reporter.source?.text ?? '', start),
    );
    return undefined;
  }
  if (reportYamlErrors(composed.doc.errors, base, reporter, label)) return undefined;
  return composed;
}

/** What to do about a YAML error, for the errors quoting or re-indenting fixes; the others speak for themselves. */
const YAML_HINTS: Partial<Record<string, string>> = {
  BLOCK_AS_IMPLICIT_KEY: 'quote the value if it contains ": " or starts with a special character',
  BAD_SCALAR_START: 'quote the value if it contains ": " or starts with a special character',
  MULTILINE_IMPLICIT_KEY: 'quote the value if it contains ": " or starts with a special character',
  TAB_AS_INDENT: 'indent with spaces',
};

/**
 * The offset of the innermost `[` or `{` still open at `at` (scanning from `base`, outside quoted values and
 * comments; an apostrophe inside a word is not a quote), or undefined when none is.
 */
function unclosedFlowStart(text: string, base: number, at: number): number | undefined {
  const open: number[] = [];
  let quote = '';
  for (let i = base; i < at && i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if ((c === '"' || c === "'") && (i === base || /[\s[{,:]/.test(text[i - 1]!))) quote = c;
    else if (c === '#' && (i === base || /\s/.test(text[i - 1]!))) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '[' || c === '{') open.push(i);
    else if (c === ']' || c === '}') open.pop();
  }
  return open.at(-1);
}

/** Reports YAML errors (syntax, duplicate keys) at their absolute offsets; returns whether there were any. */
export function reportYamlErrors(
  errors: readonly YAMLError[],
  base: number,
  reporter: Reporter,
  label = 'YAML',
): boolean {
  const text = reporter.source?.text ?? '';
  for (const error of errors) {
    const duplicate = error.code === 'DUPLICATE_KEY';
    const key = text
      .slice(base + error.pos[0], lineEnd(text, base + error.pos[0]))
      .split(':')[0]!
      .trim();
    const hint = YAML_HINTS[error.code];
    const reason = duplicate
      ? `Duplicate key \`${key}\` (keys must be unique)`
      : `${label}: ${error.message.split('\n')[0]}${hint ? ` (${hint})` : ''}`;
    // An unclosed `[` or `{` is found where the next line starts; the mistake is the bracket left open.
    const opener =
      error.code === 'BAD_INDENT' ? unclosedFlowStart(text, base, base + error.pos[0]) : undefined;
    reporter.report(
      duplicate ? 'duplicate-key' : 'yaml-syntax',
      reason,
      opener ?? base + error.pos[0],
      opener === undefined ? base + error.pos[1] : opener + 1,
    );
  }
  return errors.length > 0;
}

/**
 * The document as plain JSON values. Aliases are checked first: one without an anchor before it is a syntax error, one
 * inside the node it names (a cycle, which would make the value circular) and copies past `MAX_YAML_ALIAS_COUNT` are
 * `yaml-alias-limit`; all at the alias.
 */
export function yamlToJS(
  parsed: { doc: Document.Parsed; hasAliases: boolean },
  base: number,
  reporter: Reporter,
): { ok: true; value: unknown } | { ok: false } {
  const { doc, hasAliases } = parsed;
  let first: Alias | undefined;
  if (hasAliases) {
    const problem = checkAliases(doc);
    first = problem.first;
    if (problem.alias) {
      const [start, end] = problem.alias.range ?? [0, 0];
      const name = problem.alias.source;
      if (problem.kind === 'unresolved') {
        reporter.report(
          'yaml-syntax',
          `YAML: alias \`*${name}\` has no anchor \`&${name}\` before it`,
          base + start,
          base + end,
        );
      } else {
        reporter.report(
          'yaml-alias-limit',
          `YAML: alias \`*${name}\` is inside the node it names (a cycle)`,
          base + start,
          base + end,
        );
      }
      return { ok: false };
    }
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT }) };
  } catch (error) {
    if (!(error instanceof ReferenceError) || !first) throw error;
    const [start, end] = first.range ?? [0, 0];
    reporter.report(
      'yaml-alias-limit',
      `YAML: aliases copy one anchor's nodes more than ${MAX_YAML_ALIAS_COUNT} times (a guard against alias bombs)`,
      base + start,
      base + end,
    );
    return { ok: false };
  }
}

type AliasProblem = { first?: Alias; alias?: Alias; kind?: 'unresolved' | 'cycle' };

/** Walks the document in source order, the way `yaml` resolves aliases (the last anchor of that name before it). */
function checkAliases(doc: Document.Parsed): AliasProblem {
  const anchors = new Map<string, Node>();
  let first: Alias | undefined;
  const stack: unknown[] = doc.contents ? [doc.contents] : [];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isPair(node)) {
      stack.push(node.value, node.key);
      continue;
    }
    if (isAlias(node)) {
      first ??= node;
      const source = anchors.get(node.source);
      if (!source) return { first, alias: node, kind: 'unresolved' };
      const [start, end] = source.range ?? [0, 0];
      const at = node.range?.[0] ?? -1;
      if (start <= at && at < end) return { first, alias: node, kind: 'cycle' };
      continue;
    }
    const anchored = node as Node | null;
    if (anchored && typeof anchored === 'object' && 'anchor' in anchored && anchored.anchor) {
      anchors.set(anchored.anchor, anchored);
    }
    if (isCollection(node)) for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i]);
  }
  return first ? { first } : {};
}
