import type { ContentBlock } from '@agentclientprotocol/sdk';

/**
 * A prompt's content blocks as the text of one user message: text as it is, a linked resource as a line naming it,
 * an embedded text resource (a file the editor attached) inside a `<file>` block with its URI (see `fileBlock`);
 * images, audio and binary resources (not advertised) as a note.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text;
        case 'resource_link':
          return `[${linkLabel(block.title ?? block.name)}](${linkTarget(block.uri)})`;
        case 'resource': {
          const resource = block.resource;
          if ('text' in resource) return fileBlock(resource.uri, resource.text);
          return `(attached ${resource.uri}: binary content not shown)`;
        }
        default:
          return `(an ${block.type} attachment was left out: birdie takes text)`;
      }
    })
    .join('\n');
}

/**
 * An attached file as `<file uri="URI">\nTEXT\n</file>`, a wrapper the model can trust to hold the whole file and
 * nothing else: the file is data (often from a repository the user did not write), so neither part may end it early
 * and pose as the user's own words. The URI is an attribute value with `&`, `"`, `<`, `>` and line breaks written as
 * entities; in the text, every `<` that would open or close a `file` tag (`<file`, `</file`, any case, blanks
 * allowed) is written `&lt;`, and nothing else changes (code keeps its `<` and `&`), so `</file>` on the last line
 * is the only closing tag.
 */
export function fileBlock(uri: string, text: string): string {
  return `<file uri="${attributeValue(uri)}">\n${text.replace(FILE_TAG, '&lt;')}\n</file>`;
}

/** A `<` that starts a `file` tag, opening or closing, as a lenient reader (a model) would take it. */
const FILE_TAG = /<(?=\s*\/?\s*file(?![\w-]))/gi;

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '"': '&quot;',
  '<': '&lt;',
  '>': '&gt;',
  '\n': '&#10;',
  '\r': '&#13;',
};

function attributeValue(value: string): string {
  return value.replace(/[&"<>\n\r]/g, (c) => ENTITIES[c]!);
}

/** A link's label with `\`, `[` and `]` escaped: the editor's title is data and must not end the link early. */
function linkLabel(label: string): string {
  return label.replace(/[\\[\]]/g, (c) => `\\${c}`);
}

/** A link's target with what would end it (parentheses, blanks, angle brackets) percent-encoded. */
function linkTarget(uri: string): string {
  return uri.replace(/[()\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Whether a prompt has anything to say: a block other than text, or text that is not only blanks. */
export function promptIsEmpty(blocks: readonly ContentBlock[]): boolean {
  return blocks.every((block) => block.type === 'text' && block.text.trim() === '');
}
