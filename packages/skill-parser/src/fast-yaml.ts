/**
 * A reader for the plain subset of block YAML that tool schemas are written in (`key: value` lines, nested by indent,
 * `[a, b]` / `{type: string}` flow collections of simple scalars, `- item` lists). It gives exactly what the `yaml`
 * package gives (YAML 1.2 core schema) or `undefined` as soon as anything falls outside the subset — then the caller uses
 * `yaml`, which also reports errors with positions. It exists because `yaml` costs more than all the rest of a tool
 * skill; tests hold the two readers together.
 */

import { MAX_YAML_DEPTH } from './limits.js';
import { setOwn } from './own.js';

type Value = unknown;
const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const ITEM = /^- +(.*)$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/** Plain scalars that cannot start with an indicator or hold `: ` / ` #` (which would change their meaning). */
const PLAIN = /^[^-?:,[\]{}#&*!|>'"%@`\s](?:[^:#]|:(?! |$)|(?<! )#)*$/;
const SIMPLE_FLOW_ITEM = /^[^-?:,[\]{}#&*!|>'"%@`\s][^,[\]{}:#'"]*$/;

function scalar(raw: string): Value | typeof FAIL {
  const text = raw.trim();
  if (text === '' || text === '~' || text === 'null' || text === 'Null' || text === 'NULL') return null;
  if (text === 'true' || text === 'True' || text === 'TRUE') return true;
  if (text === 'false' || text === 'False' || text === 'FALSE') return false;
  if (INT.test(text)) return Number.parseInt(text, 10);
  if (FLOAT.test(text)) return Number.parseFloat(text);
  if (/^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/.test(text) || /^0[xo]/.test(text)) return FAIL;
  if (text.startsWith('"')) return /^"[^"\\]*"$/.test(text) ? text.slice(1, -1) : FAIL;
  if (text.startsWith("'")) return /^'[^']*'$/.test(text) ? text.slice(1, -1) : FAIL;
  if (text.startsWith('[')) return flowSeq(text);
  if (text.startsWith('{')) return flowMap(text);
  return PLAIN.test(text) ? text : FAIL;
}

const FAIL = Symbol('fail');

function flowItems(inner: string): string[] | undefined {
  if (inner.trim() === '') return [];
  const items = inner.split(',').map((s) => s.trim());
  if (items.at(-1) === '') items.pop(); // a trailing comma is allowed
  return items.every((i) => i !== '') ? items : undefined;
}

/** Inside `[…]` / `{…}` only numbers and simple words (no nesting, quotes or indicators). */
function flowScalar(item: string): Value | typeof FAIL {
  return INT.test(item) || FLOAT.test(item) || SIMPLE_FLOW_ITEM.test(item) ? scalar(item) : FAIL;
}

function flowSeq(text: string): Value[] | typeof FAIL {
  if (!text.endsWith(']')) return FAIL;
  const items = flowItems(text.slice(1, -1));
  if (!items) return FAIL;
  const out: Value[] = [];
  for (const item of items) {
    const value = flowScalar(item);
    if (value === FAIL) return FAIL;
    out.push(value);
  }
  return out;
}

function flowMap(text: string): Record<string, Value> | typeof FAIL {
  if (!text.endsWith('}')) return FAIL;
  const items = flowItems(text.slice(1, -1));
  if (!items) return FAIL;
  const out: Record<string, Value> = {};
  for (const item of items) {
    const match = /^([A-Za-z_][A-Za-z0-9_-]*): +(.+)$/.exec(item);
    if (!match || Object.hasOwn(out, match[1]!)) return FAIL;
    if (typeof scalar(match[1]!) !== 'string') return FAIL;
    const value = flowScalar(match[2]!);
    if (value === FAIL) return FAIL;
    setOwn(out, match[1]!, value);
  }
  return out;
}

interface Line {
  indent: number;
  text: string;
  /** Offsets (in the parsed text) of the first and past the last non-blank character. */
  start: number;
  end: number;
}

/** Where a top-level key and its value are, as offsets into the parsed text. */
export interface FastField {
  value: unknown;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

/** Parses `text` (a block mapping) or returns `undefined` when it is not in the subset. */
export function fastYaml(text: string): Record<string, Value> | undefined {
  return read(text)?.value;
}

/** Like `fastYaml`, with the positions of the top-level keys and values (for messages). */
export function fastYamlFields(text: string): Map<string, FastField> | undefined {
  const fields = new Map<string, FastField>();
  return read(text, fields) ? fields : undefined;
}

function read(text: string, fields?: Map<string, FastField>) {
  const lines: Line[] = [];
  let offset = 0;
  for (const raw of text.split('\n')) {
    const lineStart = offset;
    offset += raw.length + 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    if (line.includes('\t')) return undefined;
    const indent = line.length - line.trimStart().length;
    const body = line.slice(indent).trimEnd();
    lines.push({ indent, text: body, start: lineStart + indent, end: lineStart + indent + body.length });
  }
  if (lines.length === 0 || lines[0]!.indent !== 0) return undefined;
  const state = { index: 0, fields };
  const value = mapping(lines, state, 0, 1);
  return value !== FAIL && state.index === lines.length ? { value } : undefined;
}

interface State {
  index: number;
  /** Filled with the top-level keys' positions when given. */
  fields?: Map<string, FastField> | undefined;
}

/** Nesting past the limit is left to `yaml`, which reports it with a position. */
function block(lines: Line[], state: State, indent: number, depth: number): Value | typeof FAIL {
  if (depth > MAX_YAML_DEPTH) return FAIL;
  const first = lines[state.index]!;
  return ITEM.test(first.text) || first.text === '-'
    ? sequence(lines, state, indent)
    : mapping(lines, state, indent, depth);
}

function mapping(
  lines: Line[],
  state: State,
  indent: number,
  depth: number,
): Record<string, Value> | typeof FAIL {
  const out: Record<string, Value> = {};
  while (state.index < lines.length) {
    const line = lines[state.index]!;
    if (line.indent < indent) break;
    if (line.indent > indent) return FAIL;
    const match = KEY.exec(line.text);
    // Keys such as `true` or `null` are not strings to YAML: outside the subset.
    if (!match || Object.hasOwn(out, match[1]!) || typeof scalar(match[1]!) !== 'string') return FAIL;
    state.index++;
    const key = match[1]!;
    const inline = match[2];
    const top = indent === 0 ? state.fields : undefined;
    const keyEnd = line.start + key.length;
    if (inline !== undefined && inline !== '') {
      const value = scalar(inline);
      if (value === FAIL) return FAIL;
      setOwn(out, key, value);
      top?.set(key, {
        value,
        keyStart: line.start,
        keyEnd,
        valueStart: line.end - inline.length,
        valueEnd: line.end,
      });
      continue;
    }
    const next = lines[state.index];
    if (next && (next.indent > indent || (next.indent === indent && ITEM.test(next.text)))) {
      const nested = { index: state.index };
      const value = block(lines, nested, next.indent, depth + 1);
      if (value === FAIL) return FAIL;
      state.index = nested.index;
      setOwn(out, key, value);
      const last = lines[state.index - 1]!;
      top?.set(key, { value, keyStart: line.start, keyEnd, valueStart: next.start, valueEnd: last.end });
    } else {
      setOwn(out, key, null);
      top?.set(key, {
        value: null,
        keyStart: line.start,
        keyEnd,
        valueStart: keyEnd + 1,
        valueEnd: keyEnd + 1,
      });
    }
  }
  return out;
}

function sequence(lines: Line[], state: State, indent: number): Value[] | typeof FAIL {
  const out: Value[] = [];
  while (state.index < lines.length) {
    const line = lines[state.index]!;
    if (line.indent !== indent) break;
    const match = ITEM.exec(line.text);
    if (!match) break;
    // `- key: value` starts a mapping inside the list: outside the subset.
    if (/^[^'"[{]*: /.test(match[1]!) || match[1]!.endsWith(':')) return FAIL;
    const value = scalar(match[1]!);
    if (value === FAIL) return FAIL;
    out.push(value);
    state.index++;
  }
  return out;
}
