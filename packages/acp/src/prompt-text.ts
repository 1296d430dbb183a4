import type { ContentBlock } from '@agentclientprotocol/sdk';

/**
 * A prompt's content blocks as the text of one user message: text as it is, a linked resource as a line naming it,
 * an embedded text resource (a file the editor attached) inside a `<file>` block with its URI; images, audio and
 * binary resources (not advertised) as a note.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text;
        case 'resource_link':
          return `[${block.title ?? block.name}](${block.uri})`;
        case 'resource': {
          const resource = block.resource;
          if ('text' in resource) return `<file uri="${resource.uri}">\n${resource.text}\n</file>`;
          return `(attached ${resource.uri}: binary content not shown)`;
        }
        default:
          return `(an ${block.type} attachment was left out: birdie takes text)`;
      }
    })
    .join('\n');
}
