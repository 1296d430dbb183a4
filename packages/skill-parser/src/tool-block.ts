import { parseDocument } from 'yaml';
import type { Reporter } from './diagnostics.js';
import { fastYaml } from './fast-yaml.js';
import { reportYamlErrors } from './frontmatter.js';
import type { Fence, ToolBlockRange } from './outline.js';
import { checkSchema } from './schema.js';
import { lineEnd, nextLine, pointAt, type Source } from './source.js';
import type { JsonSchemaObject, SkillTool, ToolApproval } from './types.js';
import { approvalSchema, retriesSchema, timeoutSchema, zodReason } from './values.js';

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** `scheme:target`: a lower-case scheme, a colon, then something that is not blank. */
export const ENTRYPOINT_SHAPE = /^[a-z][a-z0-9+._-]*:\S/;
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?=[ \t]|$)[ \t]*/;
const BLOCK_SCALAR = /^[|>][-+0-9]*(?:[ \t]+#.*)?$/;
const KNOWN_KEYS = new Set(['description', 'entrypoint', 'schema', 'timeout', 'retries', 'approval']);

interface Line {
  start: number;
  text: string;
}

interface Entry {
  key: string;
  keyStart: number;
  /** The rest of the key's line after `key:` and blanks, untouched. */
  inline: string;
  inlineStart: number;
  lines: Line[];
  fence?: Fence;
}

/** Splits a tool block into top-level `key:` entries; fenced code blocks are cut out (they come from the tree). */
function readEntries(source: Source, block: ToolBlockRange, reporter: Reporter): Entry[] {
  const { text } = source;
  const entries: Entry[] = [];
  let current: Entry | undefined;
  let ignoredReported = false;
  let fenceIndex = 0;
  let offset = block.start;
  while (offset < block.end) {
    const fence = block.fences[fenceIndex];
    if (fence && offset >= fence.start) {
      if (current && !current.fence && !current.lines.some((l) => l.text.trim())) current.fence = fence;
      else if (current) current = undefined;
      fenceIndex++;
      offset = nextLine(text, fence.end);
      current = undefined;
      continue;
    }
    const end = Math.min(lineEnd(text, offset), block.end);
    const line = text.slice(offset, end);
    const key = KEY_LINE.exec(line);
    if (key) {
      current = {
        key: key[1]!,
        keyStart: offset,
        inline: line.slice(key[0].length),
        inlineStart: offset + key[0].length,
        lines: [],
      };
      entries.push(current);
    } else if (current) {
      current.lines.push({ start: offset, text: line });
    } else if (line.trim() && !line.startsWith('#') && !ignoredReported) {
      ignoredReported = true;
      reporter.report(
        'tool-text-ignored',
        'Text before the first `key:` line of a tool block is ignored',
        offset,
        end,
      );
    }
    offset = nextLine(text, offset);
  }
  return entries;
}

/** Parses one entry (`key:` line plus its continuation lines) as YAML and returns the key's value. */
function yamlValue(source: Source, entry: Entry, reporter: Reporter): { ok: boolean; value: unknown } {
  const last = [...entry.lines].reverse().find((l) => l.text.trim());
  const end = last ? last.start + last.text.length : entry.inlineStart + entry.inline.length;
  const text = source.text.slice(entry.keyStart, end);
  const fast = fastYaml(text);
  if (fast) return { ok: true, value: fast[entry.key] };
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (reportYamlErrors(doc.errors, entry.keyStart, reporter)) return { ok: false, value: undefined };
  const data = doc.toJS({ maxAliasCount: 50 }) as Record<string, unknown> | null;
  return { ok: true, value: data?.[entry.key] };
}

/** YAML folding for plain prose: lines join with a space, a blank line becomes a newline. */
function foldProse(entry: Entry): string {
  const paragraphs: string[][] = [[entry.inline.trim()]];
  for (const line of entry.lines) {
    const trimmed = line.text.trim();
    if (!trimmed) paragraphs.push([]);
    else paragraphs[paragraphs.length - 1]!.push(trimmed);
  }
  return paragraphs
    .map((p) => p.filter(Boolean).join(' '))
    .filter(Boolean)
    .join('\n');
}

function needsYaml(inline: string): boolean {
  const value = inline.trim();
  return value === '' || value.startsWith('"') || value.startsWith("'") || BLOCK_SCALAR.test(value);
}

function readEntrypoint(source: Source, entry: Entry, reporter: Reporter): string | undefined {
  const inline = entry.inline.trimEnd();
  const extra = entry.lines.find((l) => l.text.trim());
  if (needsYaml(inline) && !(inline.startsWith('"') || inline.startsWith("'"))) {
    const { ok, value } = yamlValue(source, entry, reporter);
    if (!ok) return undefined;
    return typeof value === 'string' ? value.trim() : value == null ? '' : String(value);
  }
  if (extra) {
    reporter.report(
      'tool-text-ignored',
      'An entrypoint is taken from its own line only; this line is ignored',
      extra.start,
      extra.start + extra.text.length,
    );
  }
  if (inline.startsWith('"') || inline.startsWith("'")) {
    // A value that is exactly one quoted YAML scalar is unquoted; anything else stays verbatim.
    const doc = parseDocument(inline, { prettyErrors: false });
    if (doc.errors.length === 0 && typeof doc.contents?.toJSON() === 'string') return doc.toJS() as string;
  }
  return inline;
}

function readDescription(source: Source, entry: Entry, reporter: Reporter): string | undefined {
  if (!needsYaml(entry.inline)) return foldProse(entry);
  const { ok, value } = yamlValue(source, entry, reporter);
  if (!ok) return undefined;
  if (value == null) return '';
  if (typeof value !== 'string') {
    reporter.report('invalid-type', 'Tool `description` must be text', entry.keyStart, entry.inlineStart);
    return undefined;
  }
  return value.trim();
}

function readSchema(source: Source, entry: Entry | undefined, fence: Fence | undefined, reporter: Reporter) {
  if (entry && !fence) {
    const { ok, value } = yamlValue(source, entry, reporter);
    if (!ok) return undefined;
    if (value == null) return { type: 'object', properties: {} } satisfies JsonSchemaObject;
    return checkSchema(value, reporter, entry.keyStart, entry.inlineStart);
  }
  if (!fence) return { type: 'object', properties: {} } satisfies JsonSchemaObject;
  // JSON is YAML 1.2: one parser gives exact positions (and duplicate keys) for both kinds of fence.
  const valueStart = nextLine(source.text, fence.start);
  if (fence.lang === 'json') {
    const json = tryJson(fence.value);
    if (json.ok) return checkSchema(json.value, reporter, fence.start, fence.end);
  } else {
    const fast = fastYaml(fence.value);
    if (fast) return checkSchema(fast, reporter, fence.start, fence.end);
  }
  const doc = parseDocument(fence.value, { prettyErrors: false, uniqueKeys: true });
  if (reportYamlErrors(doc.errors, valueStart, reporter, fence.lang === 'json' ? 'JSON' : 'YAML'))
    return undefined;
  if (fence.lang === 'json') {
    try {
      JSON.parse(fence.value);
    } catch (error) {
      // Valid YAML but not JSON (e.g. `"a": }`): V8 sometimes names the position.
      const at = /position (\d+)/.exec((error as Error).message);
      const offset = valueStart + (at ? Number(at[1]) : 0);
      reporter.report('tool-invalid-schema', `Schema is not valid JSON: ${(error as Error).message}`, offset);
      return undefined;
    }
  }
  return checkSchema(doc.toJS({ maxAliasCount: 50 }), reporter, fence.start, fence.end);
}

/** JSON.parse keeps the last of duplicate keys silently; duplicates are an error, so those go to the YAML reader. */
function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    const value = JSON.parse(text) as unknown;
    return hasDuplicateKeys(text) ? { ok: false } : { ok: true, value };
  } catch {
    return { ok: false };
  }
}

/** Whether an object in valid JSON text repeats a key (strings are skipped whole, so braces inside them do not count). */
function hasDuplicateKeys(text: string): boolean {
  const stack: Set<string>[] = [];
  const token = /"(?:[^"\\]|\\.)*"(\s*:)?|[{}]/g;
  for (let m = token.exec(text); m; m = token.exec(text)) {
    if (m[0] === '{') stack.push(new Set());
    else if (m[0] === '}') stack.pop();
    else if (m[1]) {
      const keys = stack.at(-1)!;
      const key = JSON.parse(m[0].slice(0, m[0].length - m[1].length)) as string;
      if (keys.has(key)) return true;
      keys.add(key);
    }
  }
  return false;
}

function scalar<T>(
  source: Source,
  entry: Entry,
  reporter: Reporter,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: unknown } },
) {
  const { ok, value } = yamlValue(source, entry, reporter);
  if (!ok) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  reporter.report(
    'invalid-type',
    `Tool \`${entry.key}\`: ${zodReason(parsed.error)}`,
    entry.inlineStart,
    entry.inlineStart + entry.inline.length,
  );
  return undefined;
}

/** Reads one `### name` block into a tool; `undefined` when it has errors (they are reported). */
export function parseToolBlock(
  source: Source,
  block: ToolBlockRange,
  reporter: Reporter,
): SkillTool | undefined {
  const before = reporter.messages.length;
  const line = pointAt(source, block.headingStart).line;
  const nameStart = source.text.indexOf(block.name, block.headingStart);
  if (!TOOL_NAME.test(block.name)) {
    reporter.report(
      'invalid-tool-name',
      `Tool name \`${block.name}\` must match ^[a-zA-Z0-9_-]{1,64}$ (what model providers accept)`,
      nameStart,
      nameStart + block.name.length,
    );
  }
  const entries = readEntries(source, block, reporter);
  const byKey = new Map<string, Entry>();
  for (const entry of entries) {
    if (byKey.has(entry.key)) {
      reporter.report(
        'duplicate-key',
        `Duplicate key \`${entry.key}\` in tool \`${block.name}\``,
        entry.keyStart,
        entry.keyStart + entry.key.length,
      );
      continue;
    }
    byKey.set(entry.key, entry);
    if (!KNOWN_KEYS.has(entry.key)) {
      reporter.report(
        'unknown-tool-key',
        `Unknown tool key \`${entry.key}\` is ignored`,
        entry.keyStart,
        entry.keyStart + entry.key.length,
      );
    }
  }

  const entrypointEntry = byKey.get('entrypoint');
  const entrypoint = entrypointEntry ? readEntrypoint(source, entrypointEntry, reporter) : undefined;
  if (!entrypointEntry) {
    reporter.report(
      'tool-missing-entrypoint',
      `Tool \`${block.name}\` has no \`entrypoint:\``,
      block.headingStart,
      block.headingEnd,
    );
  } else if (entrypoint !== undefined && !ENTRYPOINT_SHAPE.test(entrypoint)) {
    reporter.report(
      'invalid-entrypoint',
      `Entrypoint \`${entrypoint}\` is not of the form \`scheme:target\``,
      entrypointEntry.inlineStart,
      entrypointEntry.inlineStart + entrypointEntry.inline.trimEnd().length,
    );
  }

  const descriptionEntry = byKey.get('description');
  const description = descriptionEntry ? readDescription(source, descriptionEntry, reporter) : '';
  if (description === '') {
    reporter.report(
      'tool-missing-description',
      `Tool \`${block.name}\` has no description`,
      block.headingStart,
      block.headingEnd,
    );
  }

  const schemaEntry = byKey.get('schema');
  const fence = schemaEntry
    ? schemaEntry.fence
    : block.fences.find((f) => ['yaml', 'yml', 'json'].includes(f.lang));
  const schema = readSchema(source, schemaEntry, fence, reporter);

  const timeoutEntry = byKey.get('timeout');
  const retriesEntry = byKey.get('retries');
  const approvalEntry = byKey.get('approval');
  const timeout = timeoutEntry ? scalar(source, timeoutEntry, reporter, timeoutSchema) : undefined;
  const retries = retriesEntry ? scalar(source, retriesEntry, reporter, retriesSchema) : undefined;
  const approval: ToolApproval | undefined = approvalEntry
    ? scalar(source, approvalEntry, reporter, approvalSchema)
    : undefined;

  const failed = reporter.messages.slice(before).some((m) => m.fatal);
  if (failed || entrypoint === undefined || description === undefined || schema === undefined)
    return undefined;
  return {
    name: block.name,
    description,
    entrypoint,
    schema,
    ...(timeout !== undefined ? { timeout } : {}),
    ...(retries !== undefined ? { retries } : {}),
    ...(approval !== undefined ? { approval } : {}),
    line,
  };
}
