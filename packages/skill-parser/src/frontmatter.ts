import { isMap, isScalar, type Node } from 'yaml';
import type { Reporter } from './diagnostics.js';
import { fastYamlFields } from './fast-yaml.js';
import { getOwn } from './own.js';
import type { Source } from './source.js';
import { parseYaml, yamlToJS } from './yaml.js';

/** Where the frontmatter is: the same rule as micromark-extension-frontmatter (remark-frontmatter). */
export type FrontmatterRange =
  | { state: 'ok'; valueStart: number; valueEnd: number; bodyStart: number }
  | { state: 'missing' }
  | { state: 'unclosed'; openEnd: number };

const OPEN = /^---[ \t]*\r?\n/;
const CLOSE = /^---[ \t]*\r?$/gm;

/** The fence must be the very first line; the closing fence is the next line that is only `---`. */
export function findFrontmatter(text: string): FrontmatterRange {
  const open = OPEN.exec(text);
  if (!open) return { state: 'missing' };
  const valueStart = open[0].length;
  CLOSE.lastIndex = valueStart;
  const close = CLOSE.exec(text);
  if (!close) return { state: 'unclosed', openEnd: 3 };
  const closeEnd = close.index + close[0].length;
  const bodyStart = text.charCodeAt(closeEnd) === 10 ? closeEnd + 1 : closeEnd;
  return { state: 'ok', valueStart, valueEnd: close.index, bodyStart };
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
): { fields: Map<string, Field>; base: number } | undefined {
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
  const parsed = parseYaml(text, base, reporter);
  if (!parsed) return undefined;
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
