import { isScalar } from 'yaml';
import type { Reporter } from './diagnostics.js';
import type { ToolBlockRange } from './outline.js';
import { asText } from './own.js';
import { readSchema } from './schema.js';
import { pointAt, type Source } from './source.js';
import { type Entry, foldProse, needsYaml, readEntries, yamlValue } from './tool-entries.js';
import { readToolSettings, TOOL_SETTING_KEYS } from './tool-settings.js';
import type { SkillTool, ToolApproval } from './types.js';
import { approvalSchema, retriesSchema, timeoutSchema, zodReason } from './values.js';
import { composeYaml } from './yaml.js';

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** `scheme:target`: a lower-case scheme, a colon, then something that is not blank. */
export const ENTRYPOINT_SHAPE = /^[a-z][a-z0-9+._-]*:\S/;
const KNOWN_KEYS = new Set<string>([
  'description',
  'entrypoint',
  'schema',
  'timeout',
  'retries',
  'approval',
  'preview',
  ...TOOL_SETTING_KEYS,
]);

/** The entrypoint and the offset of its first character in the source. */
function readEntrypoint(
  source: Source,
  entry: Entry,
  reporter: Reporter,
): { value: string; start: number } | undefined {
  const inline = entry.inline.trimEnd();
  const extra = entry.lines.find((l) => l.text.trim());
  if (needsYaml(inline) && !(inline.startsWith('"') || inline.startsWith("'"))) {
    // A block scalar or a value on the next lines: it starts at the first character of the first line holding text.
    const { ok, value } = yamlValue(source, entry, reporter);
    if (!ok) return undefined;
    const start = extra ? extra.start + extra.text.length - extra.text.trimStart().length : entry.inlineStart;
    return {
      value: typeof value === 'string' ? value.trim() : value == null ? '' : asText(value),
      start,
    };
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
    const unquoted = quotedScalar(inline);
    if (unquoted !== undefined) return { value: unquoted, start: entry.inlineStart + 1 };
  }
  return { value: inline, start: entry.inlineStart };
}

/** The string a line holds when it is exactly one quoted YAML scalar. */
function quotedScalar(line: string): string | undefined {
  const composed = composeYaml(line);
  if (!composed.ok || composed.doc.errors.length > 0) return undefined;
  const contents = composed.doc.contents;
  return isScalar(contents) && typeof contents.value === 'string' ? contents.value : undefined;
}

/** `preview: node:module#export` (a module of the skill and one of its exports): the only shape a preview takes. */
const PREVIEW_SHAPE = /^node:[^#\s]+#[A-Za-z_$][\w$]*$/;

function readPreview(source: Source, entry: Entry, reporter: Reporter, tool: string): string | undefined {
  const { ok, value } = yamlValue(source, entry, reporter);
  if (!ok) return undefined;
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (text !== undefined && PREVIEW_SHAPE.test(text)) return text;
  reporter.report(
    'invalid-preview',
    `Tool \`${tool}\`, \`preview\` must be \`node:<module>#<export>\` (a function of the skill that returns the planned changes), not \`${entry.inline.trim()}\``,
    entry.inlineStart,
    entry.inlineStart + entry.inline.trimEnd().length,
  );
  return undefined;
}

function readDescription(source: Source, entry: Entry, reporter: Reporter, tool: string): string | undefined {
  if (!needsYaml(entry.inline)) return foldProse(entry);
  const { ok, value } = yamlValue(source, entry, reporter);
  if (!ok) return undefined;
  if (value == null) return '';
  if (typeof value !== 'string') {
    reporter.report(
      'invalid-type',
      `Tool \`${tool}\`, \`description\` must be text`,
      entry.keyStart,
      entry.inlineStart,
    );
    return undefined;
  }
  return value.trim();
}

function scalar<T>(
  source: Source,
  entry: Entry,
  reporter: Reporter,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: unknown } },
  tool: string,
) {
  const { ok, value } = yamlValue(source, entry, reporter);
  if (!ok) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  reporter.report(
    'invalid-type',
    `Tool \`${tool}\`, \`${entry.key}\`: ${zodReason(parsed.error)}`,
    entry.inlineStart,
    entry.inlineStart + entry.inline.length,
  );
  return undefined;
}

function position(source: Source, offset: number): { line: number; column: number } {
  const { line, column } = pointAt(source, offset);
  return { line, column };
}

/** Reads one `### name` block into a tool; `undefined` when it has errors (they are reported). */
export function parseToolBlock(
  source: Source,
  block: ToolBlockRange,
  reporter: Reporter,
): SkillTool | undefined {
  const before = reporter.messages.length;
  const line = pointAt(source, block.headingStart).line;
  if (!TOOL_NAME.test(block.name)) {
    // The name is the heading's text: where markup changed it (`a\_b`, `&amp;`), it is not in the source as such, and
    // the whole heading is its place.
    const heading = source.text.slice(block.headingStart, block.headingEnd);
    const at = heading.indexOf(block.name);
    const [start, end] =
      at === -1 || block.name === ''
        ? [block.headingStart, block.headingEnd]
        : [block.headingStart + at, block.headingStart + at + block.name.length];
    reporter.report(
      'invalid-tool-name',
      `Tool name \`${block.name}\` must match ^[a-zA-Z0-9_-]{1,64}$ (what model providers accept)`,
      start,
      end,
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
  const read = entrypointEntry ? readEntrypoint(source, entrypointEntry, reporter) : undefined;
  const entrypoint = read?.value;
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
  const description = descriptionEntry ? readDescription(source, descriptionEntry, reporter, block.name) : '';
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
  const timeout = timeoutEntry
    ? scalar(source, timeoutEntry, reporter, timeoutSchema, block.name)
    : undefined;
  const asked = retriesEntry ? scalar(source, retriesEntry, reporter, retriesSchema, block.name) : undefined;
  // Only http: retries (a GET, or a status that says nothing happened): a command or a module that failed may have
  // had its effect, and running it again is not the author's to assume. Said at load, never silently ignored.
  const scheme = entrypoint ? /^([a-z][a-z0-9+._-]*):/.exec(entrypoint)?.[1] : undefined;
  const retries = asked !== undefined && scheme !== undefined && scheme !== 'http' ? undefined : asked;
  if (asked !== undefined && retries === undefined)
    reporter.report(
      'tool-key-not-applicable',
      `\`retries\` applies to http: tools, not to a ${scheme}: tool; it is ignored`,
      retriesEntry!.keyStart,
      retriesEntry!.keyStart + 'retries'.length,
    );
  const approval: ToolApproval | undefined = approvalEntry
    ? scalar(source, approvalEntry, reporter, approvalSchema, block.name)
    : undefined;

  const previewEntry = byKey.get('preview');
  const preview = previewEntry ? readPreview(source, previewEntry, reporter, block.name) : undefined;

  const settings = readToolSettings(source, byKey, entrypoint, reporter, block.name);

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
    ...(preview !== undefined ? { preview } : {}),
    ...settings,
    line,
    entrypointPosition: position(source, read!.start),
  };
}
