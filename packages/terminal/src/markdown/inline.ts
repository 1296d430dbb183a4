import type { PhrasingContent } from 'mdast';
import type { Style } from '../style.js';

/** What inline rendering needs: the styler and how links are shown. */
export interface InlineContext {
  style: Style;
  /** The URL of a link reference definition (`[id]: url`), by its normalized identifier. */
  definitions: ReadonlyMap<string, string>;
}

/**
 * Phrasing content as styled text: strong is bold, emphasis italic, strikethrough struck, inline code cyan, a link
 * its underlined text followed by the URL in parentheses (the URL alone when it is the text, as for autolinks).
 * Hard breaks stay line breaks; soft breaks become spaces and the paragraph is wrapped again by the block renderer.
 */
export function renderInline(nodes: readonly PhrasingContent[], context: InlineContext): string {
  return nodes.map((node) => renderNode(node, context)).join('');
}

function renderNode(node: PhrasingContent, context: InlineContext): string {
  const { style } = context;
  switch (node.type) {
    case 'text':
      return node.value.replace(/\n/g, ' ');
    case 'strong':
      return style('bold', renderInline(node.children, context));
    case 'emphasis':
      return style('italic', renderInline(node.children, context));
    case 'delete':
      return style('strikethrough', renderInline(node.children, context));
    case 'inlineCode':
      return style('cyan', node.value);
    case 'break':
      return '\n';
    case 'link':
      return link(node.children, node.url, context);
    case 'linkReference':
      return link(node.children, context.definitions.get(node.identifier) ?? '', context);
    case 'image':
      return style('dim', `[image: ${node.alt || node.url}] (${node.url})`);
    case 'imageReference': {
      const url = context.definitions.get(node.identifier) ?? '';
      return style('dim', `[image: ${node.alt || url}] (${url})`);
    }
    case 'footnoteReference':
      return style('dim', `[^${node.label ?? node.identifier}]`);
    case 'html':
      return style('dim', node.value);
    default: {
      const other = node as { value?: unknown };
      return typeof other.value === 'string' ? other.value : '';
    }
  }
}

function link(children: PhrasingContent[], url: string, context: InlineContext): string {
  const { style } = context;
  const text = renderInline(children, context);
  const plain = plainText(children);
  if (!url) return text;
  if (!plain || plain === url || `mailto:${plain}` === url) return style('underline', url);
  return `${style('underline', text)} ${style('dim', `(${url})`)}`;
}

/** The text of phrasing content without any styling (to compare a link's text with its URL). */
export function plainText(nodes: readonly PhrasingContent[]): string {
  return nodes
    .map((node) => {
      if ('value' in node && typeof node.value === 'string') return node.value;
      if ('children' in node) return plainText(node.children as PhrasingContent[]);
      return '';
    })
    .join('');
}
