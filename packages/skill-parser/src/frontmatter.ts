import type { VFileMessage } from 'vfile-message';
import { isMap, isScalar, type Node } from 'yaml';
import { Reporter } from './diagnostics.js';
import { fastYamlFields } from './fast-yaml.js';
import { getOwn } from './own.js';
import type { RuleId } from './rules.js';
import type { Source } from './source.js';
import { parseYaml, yamlToJS } from './yaml.js';

/** Where the frontmatter is: the same rule as micromark-extension-frontmatter (remark-frontmatter). */
export type FrontmatterRange =
  | { state: 'ok'; valueStart: number; valueEnd: number; bodyStart: number }
  | { state: 'missing' }
  | { state: 'unclosed'; openEnd: number };

const FENCE = /^---[ \t]*$/;

/** End of the line at `start` and where the next one starts: micromark's line endings (LF, CRLF, a lone CR). */
export function lineFrom(text: string, start: number): { end: number; next: number } {
  let end = start;
  while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
  const next = text.startsWith('\r\n', end) ? end + 2 : end < text.length ? end + 1 : end;
  return { end, next };
}

/**
 * The fence must be the very first line, followed by a line ending; the closing fence is the next line that is only
 * `---` (blanks after it allowed). Lines end as micromark ends them (a lone CR too, and not U+2028).
 */
export function findFrontmatter(text: string): FrontmatterRange {
  const open = lineFrom(text, 0);
  if (open.next === open.end || !FENCE.test(text.slice(0, open.end))) return { state: 'missing' };
  for (let start = open.next; start < text.length; ) {
    const line = lineFrom(text, start);
    if (FENCE.test(text.slice(start, line.end)))
      return { state: 'ok', valueStart: open.next, valueEnd: start, bodyStart: line.next };
    start = line.next;
  }
  return { state: 'unclosed', openEnd: 3 };
}

/** A top-level frontmatter key with its YAML node and absolute offsets. */
export interface Field {
  value: unknown;
  node: Node | null;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

/** Offsets of a YAML node, made absolute. */
export function nodeRange(node: Node | null | undefined, base: number, fallback: number): [number, number] {
  const range = node?.range;
  return range ? [base + range[0], base + range[1]] : [fallback, fallback];
}

/**
 * Parses the frontmatter YAML. Returns its top-level keys, or `undefined` when it is unusable (syntax errors, duplicate
 * keys, nesting or aliases past the limits, not a mapping): the errors are reported at their lines. With `nodes`, every
 * field keeps its YAML node (else the fast reader may leave `node` null).
 */
export function parseFrontmatter(
  source: Source,
  range: { valueStart: number; valueEnd: number },
  reporter: Reporter,
  options: { nodes?: boolean } = {},
): Frontmatter | undefined {
  const base = range.valueStart;
  const text = source.text.slice(base, range.valueEnd);
  // The plain subset is read directly; `mcp_server` needs YAML nodes (positions of nested keys), so it takes `yaml`,
  // as does a caller that asks for nodes (an agent file's list items are reported at their own positions).
  const fast = options.nodes || text.includes('mcp_server') ? undefined : fastYamlFields(text);
  if (fast) {
    const fields = new Map<string, Field>();
    for (const [key, f] of fast) {
      fields.set(key, {
        value: f.value,
        node: null,
        keyStart: base + f.keyStart,
        keyEnd: base + f.keyEnd,
        valueStart: base + f.valueStart,
        valueEnd: base + f.valueEnd,
      });
    }
    return { fields, base };
  }
  const errors = reporter.messages.length;
  const parsed = parseYaml(text, base, reporter);
  if (!parsed) {
    // Syntax errors (reported): the keys around them are still checked, each on its own, so that one bad value does
    // not hide the problems after it. Nesting or aliases past the limits stop the reading altogether.
    const syntaxOnly = reporter.messages
      .slice(errors)
      .every((m) => m.ruleId === 'yaml-syntax' || m.ruleId === 'duplicate-key');
    return syntaxOnly ? recoverFields(text, base, reporter) : undefined;
  }
  return fieldsOf(parsed, base, reporter);
}

/** A frontmatter's top-level keys; `broken`: keys whose value is not valid YAML (reported), in a damaged one. */
export interface Frontmatter {
  fields: Map<string, Field>;
  base: number;
  broken?: Set<string>;
}

function fieldsOf(
  parsed: NonNullable<ReturnType<typeof parseYaml>>,
  base: number,
  reporter: Reporter,
): Frontmatter | undefined {
  const { doc } = parsed;
  const fields = new Map<string, Field>();
  if (doc.contents === null) return { fields, base };
  if (!isMap(doc.contents)) {
    const [start, end] = nodeRange(doc.contents, base, base);
    reporter.report(
      'frontmatter-not-mapping',
      'Frontmatter must be a mapping of `key: value` lines',
      start,
      end,
    );
    return undefined;
  }
  const data = yamlToJS(parsed, base, reporter);
  if (!data.ok) return undefined;
  for (const pair of doc.contents.items) {
    const keyNode = pair.key as Node | null;
    const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    const [keyStart, keyEnd] = nodeRange(keyNode, base, base);
    const valueNode = (pair.value as Node | null) ?? null;
    const [valueStart, valueEnd] = valueNode ? nodeRange(valueNode, base, keyEnd) : [keyStart, keyEnd];
    const value = getOwn(data.value as object, key);
    fields.set(key, { value, node: valueNode, keyStart, keyEnd, valueStart, valueEnd });
  }
  return { fields, base };
}

function startOffset(message: VFileMessage): number | undefined {
  const place = message.place;
  return place && 'start' in place ? place.start.offset : place?.offset;
}

/** A line that starts a top-level key: at column 0, not blank, a comment, a list item or the end of a flow value. */
const TOP_LEVEL_KEY = /^[^\s#\-\]}]/;

/**
 * The keys of a frontmatter whose YAML has syntax errors (already reported): each top-level entry (its key line and
 * the lines indented under it) is read on its own. Entries that read cleanly are kept; the others are `broken`, their
 * own first error reported unless an error of the whole text already lies inside them.
 */
function recoverFields(text: string, base: number, reporter: Reporter): Frontmatter {
  const reported = reporter.messages.map(startOffset);
  const starts: number[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    if (TOP_LEVEL_KEY.test(line)) starts.push(offset);
    offset += line.length + 1;
  }
  const fields = new Map<string, Field>();
  const broken = new Set<string>();
  for (const [i, start] of starts.entries()) {
    const end = starts[i + 1] ?? text.length;
    const chunk = text.slice(start, end);
    const key = chunk.split(/[:\n]/, 1)[0]!.trim();
    const scratch = new Reporter(reporter.file, reporter.source);
    const parsed = parseYaml(chunk, base + start, scratch);
    const entry = parsed && fieldsOf(parsed, base + start, scratch);
    if (entry && scratch.messages.length === 0) {
      for (const [name, field] of entry.fields) if (!fields.has(name)) fields.set(name, field);
      continue;
    }
    broken.add(key);
    // An error at the very end of the text (an unclosed flow value) belongs to the last entry.
    const last = end === text.length;
    const inside = reported.some(
      (at) => at !== undefined && at >= base + start && (at < base + end || (last && at === base + end)),
    );
    const first = scratch.messages[0];
    const again = reporter.messages.some(
      (m) => first && m.ruleId === first.ruleId && m.reason === first.reason && m.line === first.line,
    );
    if (!inside && first && !again) {
      const place = first.place && 'start' in first.place ? first.place : undefined;
      reporter.report(
        first.ruleId as RuleId,
        first.reason,
        startOffset(first) ?? base + start,
        place?.end.offset,
      );
    }
  }
  return { fields, base, broken };
}

/** Offsets of the value under `key` inside a YAML mapping node (for messages about nested values). */
export function childRange(
  node: Node | null,
  key: string | number,
  base: number,
  fallback: [number, number],
) {
  if (isMap(node)) {
    for (const pair of node.items) {
      const k = pair.key as Node | null;
      if (isScalar(k) && String(k.value) === String(key)) {
        const value = (pair.value as Node | null) ?? k;
        return { key: nodeRange(k, base, fallback[0]), value: nodeRange(value, base, fallback[0]) };
      }
    }
  }
  return { key: fallback, value: fallback };
}
