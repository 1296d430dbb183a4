import type { Reporter } from './diagnostics.js';
import { fastYaml } from './fast-yaml.js';
import type { Fence, ToolBlockRange } from './outline.js';
import { getOwn } from './own.js';
import { lineEnd, nextLine, type Source } from './source.js';
import { parseYaml, yamlToJS } from './yaml.js';

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?=[ \t]|$)[ \t]*/;
const BLOCK_SCALAR = /^[|>][-+0-9]*(?:[ \t]+#.*)?$/;

export interface Line {
  start: number;
  text: string;
}

export interface Entry {
  key: string;
  keyStart: number;
  /** The rest of the key's line after `key:` and blanks, untouched. */
  inline: string;
  inlineStart: number;
  lines: Line[];
  fence?: Fence;
}

/** Splits a tool block into top-level `key:` entries; fenced code blocks are cut out (they come from the tree). */
export function readEntries(source: Source, block: ToolBlockRange, reporter: Reporter): Entry[] {
  const { text } = source;
  const entries: Entry[] = [];
  let current: Entry | undefined;
  let ignoredReported = false;
  let fenceIndex = 0;
  let offset = block.start;
  while (offset < block.end) {
    const fence = block.fences[fenceIndex];
    if (fence && offset >= fence.start) {
      // A fence right after `key:` (only blank lines between) is that key's value; a fence also ends the entry.
      if (current && !current.fence && !current.lines.some((l) => l.text.trim())) current.fence = fence;
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
export function yamlValue(source: Source, entry: Entry, reporter: Reporter): { ok: boolean; value: unknown } {
  const last = [...entry.lines].reverse().find((l) => l.text.trim());
  const end = last ? last.start + last.text.length : entry.inlineStart + entry.inline.length;
  const text = source.text.slice(entry.keyStart, end);
  const fast = fastYaml(text);
  if (fast) return { ok: true, value: getOwn(fast, entry.key) };
  const parsed = parseYaml(text, entry.keyStart, reporter);
  const data = parsed && yamlToJS(parsed, entry.keyStart, reporter);
  if (!data?.ok) return { ok: false, value: undefined };
  return { ok: true, value: getOwn(data.value as object | null, entry.key) };
}

/** YAML folding for plain prose: lines join with a space, a blank line becomes a newline. */
export function foldProse(entry: Entry): string {
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

export function needsYaml(inline: string): boolean {
  const value = inline.trim();
  return value === '' || value.startsWith('"') || value.startsWith("'") || BLOCK_SCALAR.test(value);
}
