import { basename } from 'node:path';
import { CST, Parser } from 'yaml';
import type { Reporter } from './diagnostics.js';
import { lineEnd, type Source } from './source.js';
import { SPEC_FIELDS } from './spec-fields.js';

/**
 * What birdie reads but other Agent Skills clients refuse (the reference validator among them): a byte order mark,
 * the file name `SKILL.MD`, YAML flow style in the frontmatter. Warnings (errors with `strict`), so that an author
 * who publishes hears of them.
 */
export function checkPortability(
  raw: string,
  file: string,
  source: Source,
  frontmatter: { valueStart: number; valueEnd: number } | undefined,
  reporter: Reporter,
): void {
  if (raw.charCodeAt(0) === 0xfeff)
    reporter.report(
      'byte-order-mark',
      'SKILL.md starts with a byte order mark: other Agent Skills clients find no frontmatter and refuse it',
      0,
      lineEnd(source.text, 0),
    );
  if (basename(file) === 'SKILL.MD')
    reporter.report(
      'skill-file-name',
      'The file is named SKILL.MD: the Agent Skills standard (and other clients) look for SKILL.md',
      0,
      lineEnd(source.text, 0),
    );
  const flow = frontmatter
    ? firstFlowCollection(source.text.slice(frontmatter.valueStart, frontmatter.valueEnd))
    : undefined;
  // Under birdie's own keys (`tags: [a, b]`) it tells nothing new: the reference refuses those keys anyway. Strict
  // reports it wherever it is.
  if (frontmatter && flow && (reporter.strict || SPEC_FIELDS.has(flow.key))) {
    const start = frontmatter.valueStart + flow.offset;
    reporter.report(
      'flow-style-yaml',
      'A value in YAML flow style (`[a, b]`, `{k: v}`): the reference validator (strictyaml) refuses it; write it as a block list or mapping',
      start,
      lineEnd(source.text, start),
    );
  }
}

/**
 * Offset of the first flow collection (`[…]`, `{…}`) in frontmatter YAML and the top-level key it is under, or
 * undefined; the text is lexed only if it can hold one.
 */
function firstFlowCollection(text: string): { offset: number; key: string } | undefined {
  if (!text.includes('[') && !text.includes('{')) return undefined;
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document' || token.value?.type !== 'block-map') continue;
    for (const item of token.value.items) {
      let offset = -1;
      CST.visit(item, (inner) => {
        for (const node of [inner.key, inner.value]) {
          if (node && CST.isCollection(node) && node.type === 'flow-collection') {
            offset = node.offset;
            return CST.visit.BREAK;
          }
        }
        return undefined;
      });
      if (offset >= 0) return { offset, key: item.key && CST.isScalar(item.key) ? item.key.source : '' };
    }
  }
  return undefined;
}
