import type { VFileMessage } from 'vfile-message';
import { Reporter, sortMessages } from './diagnostics.js';
import { type Frontmatter, type FrontmatterRange, findFrontmatter, parseFrontmatter } from './frontmatter.js';
import { MAX_SKILL_FILE_BYTES } from './limits.js';
import { createSource, lineEnd, type Source } from './source.js';

/** An authored Markdown file (SKILL.md, an agent file) whose frontmatter fences were found. */
export interface OpenedFile {
  source: Source;
  reporter: Reporter;
  /** Where the frontmatter's YAML text starts and ends, and where the body starts. */
  range: { valueStart: number; valueEnd: number; bodyStart: number };
  /** The top-level keys; absent when the YAML is unusable (its errors are reported). */
  front?: Frontmatter;
}

/** Finds the frontmatter fences in a file's (BOM-less) text: from the text itself, or from a tree already built. */
export type FrontmatterFinder = (text: string) => FrontmatterRange;

/**
 * The steps every authored file shares: the size limit, the frontmatter fences, the YAML. `label` names the file in
 * messages (`SKILL.md`, `An agent file`). `nodes` keeps the YAML nodes of every key (positions of list items).
 * `findRange` locates the fences (the text's own reader unless the caller has the Markdown tree).
 * Returns the messages alone when there is no frontmatter to read.
 */
export function openAuthoredFile(
  text: string,
  file: string,
  label: string,
  options: { nodes?: boolean; strict?: boolean; findRange?: FrontmatterFinder } = {},
): OpenedFile | { messages: VFileMessage[] } {
  if (text.length > MAX_SKILL_FILE_BYTES / 4 && Buffer.byteLength(text) > MAX_SKILL_FILE_BYTES) {
    const reporter = new Reporter(file);
    reporter.report('file-too-large', `${label} is ${Buffer.byteLength(text)} bytes; the limit is 1 MiB`);
    return { messages: sortMessages(reporter.messages) };
  }
  const source = createSource(text);
  const reporter = new Reporter(file, source, options.strict);
  const range = (options.findRange ?? findFrontmatter)(source.text);
  if (range.state === 'missing') {
    reporter.report(
      'missing-frontmatter',
      `${label} must start with YAML frontmatter (a \`---\` line)`,
      0,
      lineEnd(source.text, 0),
    );
    return { messages: sortMessages(reporter.messages) };
  }
  if (range.state === 'unclosed') {
    reporter.report('unclosed-frontmatter', 'Frontmatter is not closed by a `---` line', 0, range.openEnd);
    return { messages: sortMessages(reporter.messages) };
  }
  const front = parseFrontmatter(source, range, reporter, options);
  return { source, reporter, range, ...(front ? { front } : {}) };
}

/**
 * `name` and `description` are required. Absent (reported at the opening fence) or without a value (`name:`,
 * `name: ~`, reported at the key) is missing; a wrong value is `invalid-type`, reported where the value is read.
 */
export function reportMissingNameAndDescription(
  front: Frontmatter,
  source: Source,
  reporter: Reporter,
): void {
  const { fields } = front;
  for (const key of ['name', 'description'] as const) {
    // Its value is not valid YAML: that error is reported already.
    if (front.broken?.has(key)) continue;
    const field = fields.get(key);
    if (field?.value != null) continue;
    const [start, end] = field ? [field.keyStart, field.keyEnd] : [0, lineEnd(source.text, 0)];
    const reason = field ? `\`${key}\` has no value` : `Frontmatter has no \`${key}\``;
    reporter.report(key === 'name' ? 'missing-name' : 'missing-description', reason, start, end);
  }
}
