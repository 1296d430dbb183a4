import type { BlockContent, DefinitionContent, List, ListItem, RootContent, Table } from 'mdast';
import { highlight } from './highlight.js';
import { type InlineContext, renderInline } from './inline.js';
import { layoutTable } from './table.js';
import { wrapStyled } from './wrap.js';

/** What block rendering needs: inline context, the width to wrap at, and how deep in lists it is. */
export interface BlockContext extends InlineContext {
  width: number;
  depth: number;
}

const BULLETS = ['•', '◦', '▪'];

/** Block nodes as styled text, one string per block (no trailing newline); blocks that show nothing are left out. */
export function renderBlocks(nodes: readonly RootContent[], context: BlockContext): string[] {
  return nodes.flatMap((node) => {
    const text = renderBlock(node, context);
    return text === null ? [] : [text];
  });
}

function renderBlock(node: RootContent, context: BlockContext): string | null {
  const { style, width } = context;
  switch (node.type) {
    case 'heading': {
      const text = renderInline(node.children, context);
      const styled =
        node.depth === 1
          ? style('bold', style('underline', style('cyan', text)))
          : node.depth === 2
            ? style('bold', style('cyan', text))
            : style('bold', text);
      return paragraph(styled, width);
    }
    case 'paragraph':
      return paragraph(renderInline(node.children, context), width);
    case 'blockquote': {
      const inner = renderBlocks(node.children, { ...context, width: Math.max(1, width - 2) }).join('\n\n');
      return prefixLines(inner, style('dim', '│ '), style('dim', '│ '));
    }
    case 'list':
      return list(node, context);
    case 'code': {
      const fence = style('dim', `\`\`\`${node.lang ?? ''}`);
      const body = highlight(node.value, node.lang, style);
      return node.value === ''
        ? `${fence}\n${style('dim', '```')}`
        : `${fence}\n${body}\n${style('dim', '```')}`;
    }
    case 'thematicBreak':
      return style('dim', '─'.repeat(Math.min(width, 40)));
    case 'table':
      return table(node, context);
    case 'html':
      return style('dim', node.value);
    case 'definition':
      return null;
    case 'footnoteDefinition': {
      const label = `[^${node.label ?? node.identifier}]: `;
      const inner = renderBlocks(node.children, {
        ...context,
        width: Math.max(1, width - label.length),
      }).join('\n\n');
      return prefixLines(inner, style('dim', label), ' '.repeat(label.length));
    }
    default:
      return 'value' in node && typeof node.value === 'string' ? node.value : null;
  }
}

/** Inline text wrapped between words; hard breaks start new lines. */
function paragraph(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => wrapStyled(line, width))
    .join('\n');
}

function list(node: List, context: BlockContext): string {
  const { style } = context;
  const start = node.start ?? 1;
  const markers = node.children.map((item, i) => {
    const marker = node.ordered ? `${start + i}.` : BULLETS[context.depth % BULLETS.length]!;
    const check = item.checked === true ? ' ☑' : item.checked === false ? ' ☐' : '';
    return marker + check;
  });
  const markerWidth = Math.max(...markers.map((m) => [...m].length)) + 1;
  const tight = !node.spread && node.children.every((item) => !item.spread);
  const items = node.children.map((item, i) => {
    const marker = markers[i]!;
    // Numbers line up on their right edge; bullets sit at the left.
    const padded = node.ordered ? marker.padStart(markerWidth - 1) : marker.padEnd(markerWidth - 1);
    const body = listItem(item, tight, {
      ...context,
      width: Math.max(1, context.width - markerWidth),
      depth: context.depth + 1,
    });
    return prefixLines(body, `${style('yellow', padded)} `, ' '.repeat(markerWidth));
  });
  return items.join(tight ? '\n' : '\n\n');
}

function listItem(item: ListItem, tight: boolean, context: BlockContext): string {
  const blocks = renderBlocks(item.children as (BlockContent | DefinitionContent)[], context);
  return blocks.join(tight ? '\n' : '\n\n');
}

function table(node: Table, context: BlockContext): string {
  const rows = node.children.map((row) => row.children.map((cell) => renderInline(cell.children, context)));
  return layoutTable(rows, node.align ?? [], context.width, context.style);
}

/** Prefixes the first line with `first` and the others with `rest` (empty lines get no trailing spaces). */
function prefixLines(text: string, first: string, rest: string): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? first + line : line ? rest + line : rest.trimEnd()))
    .join('\n');
}
