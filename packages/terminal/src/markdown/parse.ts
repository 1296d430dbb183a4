import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

// Built once: the extensions are plain objects, reused for every parse of a streamed answer.
const extensions = [gfm()];
const mdastExtensions = gfmFromMarkdown();

/** Markdown (CommonMark + GFM: tables, strikethrough, task lists, autolinks, footnotes) as an mdast tree. */
export function parseMarkdown(source: string): Root {
  return fromMarkdown(source, { extensions, mdastExtensions });
}
