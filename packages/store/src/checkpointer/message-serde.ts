import {
  AIMessage,
  AIMessageChunk,
  ChatMessage,
  ChatMessageChunk,
  FunctionMessage,
  FunctionMessageChunk,
  HumanMessage,
  HumanMessageChunk,
  RemoveMessage,
  SystemMessage,
  SystemMessageChunk,
  ToolMessage,
  ToolMessageChunk,
} from '@langchain/core/messages';
import type { Serde } from './codec.js';

/**
 * LangGraph's serializer (`JsonPlusSerializer`, given as `serde`) with a direct path for the values a thread is mostly made of: LangChain messages with plain
 * JSON fields.
 *
 * `JsonPlusSerializer` revives every serialised LangChain object by turning it back into a string and handing it to
 * `@langchain/core/load`, an asynchronous walk that resolves the class through LangChain's import map and inverts its
 * field aliases anew for every message. Opening a 2,000-message session spent about a quarter of its decoding there.
 * This path builds the same instance the same way (`new Class(fields)`, the fields renamed as `load` renames them)
 * for the closed set of message classes below, and hands everything else — another class, a secret, an escaped
 * value, LangGraph's own records, a `__proto__` key, deep nesting — to `serde` unchanged, so the two can only differ in
 * speed. Writing is `serde`'s.
 */
export class MessageSerde implements Serde {
  constructor(private readonly serde: Serde) {}

  dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
    return this.serde.dumpsTyped(data);
  }

  async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    if (type !== 'json') return this.serde.loadsTyped(type, data);
    const text = typeof data === 'string' ? data : textOf(data);
    if (text === undefined) return this.serde.loadsTyped(type, data);
    const parsed: unknown = JSON.parse(text);
    if (!direct(parsed, 0)) return this.serde.loadsTyped(type, text);
    return revive(parsed);
  }
}

// The classes `load` finds under `["langchain_core", "messages", name]` (LangChain's import map for that namespace).
const CLASSES: ReadonlyMap<string, new (fields: Record<string, unknown>) => object> = new Map<
  string,
  new (
    fields: Record<string, unknown>,
  ) => object
>([
  ['AIMessage', AIMessage as never],
  ['AIMessageChunk', AIMessageChunk as never],
  ['ChatMessage', ChatMessage as never],
  ['ChatMessageChunk', ChatMessageChunk as never],
  ['FunctionMessage', FunctionMessage as never],
  ['FunctionMessageChunk', FunctionMessageChunk as never],
  ['HumanMessage', HumanMessage as never],
  ['HumanMessageChunk', HumanMessageChunk as never],
  ['RemoveMessage', RemoveMessage as never],
  ['SystemMessage', SystemMessage as never],
  ['SystemMessageChunk', SystemMessageChunk as never],
  ['ToolMessage', ToolMessage as never],
  ['ToolMessageChunk', ToolMessageChunk as never],
]);

/** Below `load`'s own limit (50 levels), so a value it would refuse is left to it. */
const MAX_DEPTH = 40;

/** UTF-8 text of `bytes`; undefined when it starts with a byte-order mark (TextDecoder drops it, toString keeps it). */
function textOf(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** Whether `value` (parsed JSON) holds nothing but plain JSON and messages with plain fields. */
function direct(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!direct(item, depth + 1)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, 'lc')) return isPlainMessage(record, depth);
  return fieldsAre(direct, record, depth);
}

function isPlainMessage(record: Record<string, unknown>, depth: number): boolean {
  const id = record.id;
  if (
    record.lc !== 1 ||
    record.type !== 'constructor' ||
    !Array.isArray(id) ||
    id.length !== 3 ||
    id[0] !== 'langchain_core' ||
    id[1] !== 'messages' ||
    typeof id[2] !== 'string' ||
    !CLASSES.has(id[2])
  )
    return false;
  const kwargs = record.kwargs;
  if (kwargs === null || typeof kwargs !== 'object' || Array.isArray(kwargs)) return false;
  return plain(kwargs, depth + 1);
}

/** JSON with no LangChain or LangGraph record in it and no key that assigning would treat specially. */
function plain(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!plain(item, depth + 1)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, 'lc') || Object.hasOwn(record, '__lc_escaped__')) return false;
  return fieldsAre(plain, record, depth);
}

function fieldsAre(
  check: (value: unknown, depth: number) => boolean,
  record: Record<string, unknown>,
  depth: number,
): boolean {
  for (const key in record) {
    // JSON.parse makes `__proto__` an own key; copying it as the slow path does would set a prototype instead.
    if (key === '__proto__' || !check(record[key], depth + 1)) return false;
  }
  return true;
}

/** The value with its messages built (called only on values `direct` accepted). */
function revive(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = revive(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, 'lc')) {
    const Class = CLASSES.get((record.id as string[])[2]!)!;
    return new Class(renamed(Class, record.kwargs as Record<string, unknown>));
  }
  for (const key in record) record[key] = revive(record[key]);
  return record;
}

/** The fields under the names `load` gives them: the class's aliases inverted, else the key in camel case. */
function renamed(Class: object, kwargs: Record<string, unknown>): Record<string, unknown> {
  const names = namesOf(Class);
  const out: Record<string, unknown> = {};
  for (const key in kwargs) {
    let name = names.get(key);
    if (name === undefined) {
      name = camelCase(key);
      names.set(key, name);
    }
    out[name] = kwargs[key];
  }
  return out;
}

const namesByClass = new WeakMap<object, Map<string, string>>();

/** A class's inverted `lc_aliases` (from every class up its chain), then each key's name as it is first met. */
function namesOf(Class: object): Map<string, string> {
  let names = namesByClass.get(Class);
  if (names) return names;
  const aliases: Record<string, string> = {};
  for (
    let current = Class as { prototype?: object };
    current?.prototype;
    current = Object.getPrototypeOf(current)
  )
    Object.assign(aliases, Reflect.get(current.prototype, 'lc_aliases'));
  names = new Map(Object.entries(aliases).map(([field, alias]) => [alias, field]));
  namesByClass.set(Class, names);
  return names;
}

/** `snake_case`, `kebab-case` or spaced keys to camelCase; a key without a separator is kept (trimmed). */
function camelCase(key: string): string {
  const trimmed = key.trim();
  if (!/[-_\s]/.test(trimmed)) return trimmed;
  return trimmed
    .replace(/[-_\s]+/g, '_')
    .toLowerCase()
    .replace(/_+([a-z0-9])/g, (_, char: string) => char.toUpperCase());
}
