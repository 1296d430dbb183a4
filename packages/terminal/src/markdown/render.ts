import type { Definition, Root, RootContent } from 'mdast';
import type { Style } from '../style.js';
import { renderBlocks } from './blocks.js';
import { parseMarkdown } from './parse.js';

export interface RenderOptions {
  style: Style;
  /** Columns to wrap at (a terminal's width). */
  width: number;
}

/** A whole Markdown text rendered for a terminal: blocks separated by one blank line, ending with a line break. */
export function renderMarkdown(source: string, options: RenderOptions): string {
  const tree = parseMarkdown(source);
  const blocks = renderTree(tree, tree.children, options);
  return blocks.length ? `${blocks.join('\n\n')}\n` : '';
}

/** The rendered blocks of some top-level children of `tree` (whose link definitions they may use). */
export function renderTree(tree: Root, children: readonly RootContent[], options: RenderOptions): string[] {
  return renderBlocks(children, {
    style: options.style,
    width: Math.max(1, options.width),
    depth: 0,
    definitions: definitionsOf(tree),
  });
}

function definitionsOf(tree: Root): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (nodes: readonly RootContent[]) => {
    for (const node of nodes) {
      if (node.type === 'definition') {
        const definition = node as Definition;
        if (!found.has(definition.identifier)) found.set(definition.identifier, definition.url);
      } else if ('children' in node) visit(node.children as RootContent[]);
    }
  };
  visit(tree.children);
  return found;
}
