import type { RootContent } from 'mdast';
import { parseMarkdown } from './parse.js';
import { type RenderOptions, renderTree } from './render.js';

/**
 * Markdown arriving in pieces (an answer's tokens), rendered one top-level block at a time as soon as the block is
 * known complete: when a later block has begun, or, for the last one, a closing code fence, a finished heading or
 * rule, or a blank line after a paragraph, table or quote (lists, indented code and HTML blocks may go on after a
 * blank line, so they wait for the next block). What is not complete yet stays `pending`; `end()` renders it.
 * The blocks it returns, joined with blank lines, are what `renderMarkdown` gives for the whole text at once.
 */
export class MarkdownStream {
  private source = '';

  constructor(private readonly options: () => RenderOptions) {}

  /** The text not rendered yet (it begins at the start of a line). */
  get pending(): string {
    return this.source;
  }

  /** Adds text; returns the blocks it completed (often none). */
  push(text: string): string[] {
    const hadLines = this.source.lastIndexOf('\n');
    this.source += text;
    const lastLine = this.source.lastIndexOf('\n');
    // Only whole lines decide anything: a block cannot complete in the middle of a line.
    if (lastLine === hadLines || lastLine < 0) return [];
    const whole = this.source.slice(0, lastLine + 1);
    const tree = parseMarkdown(whole);
    const { children } = tree;
    let complete = children.length - 1;
    const last = children.at(-1);
    if (last && isClosed(last, whole)) complete = children.length;
    if (complete <= 0) return [];
    const cut = complete < children.length ? lineStart(whole, children[complete]!) : whole.length;
    this.source = this.source.slice(cut);
    return renderTree(tree, children.slice(0, complete), this.options());
  }

  /** Renders what is left (the end of the answer, or a cut short one) and starts over. */
  end(): string[] {
    const source = this.source;
    this.source = '';
    if (!source.trim()) return [];
    const tree = parseMarkdown(source);
    return renderTree(tree, tree.children, this.options());
  }
}

/** Whether the last block of `source` (which ends with a line break) can no longer change with more text. */
function isClosed(node: RootContent, source: string): boolean {
  switch (node.type) {
    case 'heading':
    case 'thematicBreak':
      return true;
    case 'code':
      return fenceClosed(node, source);
    case 'paragraph':
    case 'table':
    case 'blockquote':
      return /\n[ \t]*\n$/.test(source);
    default:
      return false;
  }
}

/** A fenced code block is closed when its last line is a fence of the same character, at least as long. */
function fenceClosed(node: RootContent, source: string): boolean {
  const start = node.position?.start;
  const end = node.position?.end;
  if (!start || !end || end.line <= start.line) return false;
  const lines = source.split('\n');
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(lines[start.line - 1] ?? '');
  if (!open) return false;
  const fence = open[1]!;
  const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[end.line - 1] ?? '');
  return Boolean(close && close[1]![0] === fence[0] && close[1]!.length >= fence.length);
}

/** Offset of the start of the line a node begins on. */
function lineStart(source: string, node: RootContent): number {
  const offset = node.position?.start.offset ?? 0;
  return source.lastIndexOf('\n', offset - 1) + 1;
}
