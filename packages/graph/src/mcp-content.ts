/**
 * What the model reads of an MCP tool result: one string (the output cap wants one too). Each content block becomes
 * text the model can act on: text as is; an image or audio named with its MIME type and size; a `resource_link` with
 * its uri, name, description and type, so the model can read it (`mcp_read_resource`); an embedded `resource` with
 * its uri and its text (a blob of a text type is decoded; other blobs are named). A result's `structuredContent`
 * repeats its text as JSON, so it is sent only when no block carries text.
 */

import { DEFAULT_MAX_IMAGE_BYTES, imagesWithin, type ToolImage } from '@birdie/entrypoints';

export interface McpToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
}

/** `maxImageBytes`: an image block larger is named as dropped (`imagesWithin`), as `toolResultImages` leaves it out. */
export function toolResultToText(
  result: McpToolResultLike,
  maxImageBytes: number = DEFAULT_MAX_IMAGE_BYTES,
): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const text = blocks
    .map((block) => {
      const image = imageOf(block);
      const dropped = image && imagesWithin([image], maxImageBytes).notes[0];
      return dropped || blockToText(block);
    })
    .join('\n');
  if (blocks.some(carriesText) || result.structuredContent === undefined) return text;
  const json = JSON.stringify(result.structuredContent);
  return text ? `${text}\n${json}` : json;
}

/** Base64 as the model vendors and MCP clients accept it. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The images of a result (its `image` blocks), given beside its text as a skill tool's images are: to models that can
 * see them, and to the client of `birdie mcp` as image blocks. The text names them for every other reader. One larger
 * than `maxImageBytes` is left out (`imagesWithin`; the text says it was dropped).
 */
export function toolResultImages(
  result: McpToolResultLike,
  maxImageBytes: number = DEFAULT_MAX_IMAGE_BYTES,
): ToolImage[] {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const images = blocks.flatMap((block) => imageOf(block) ?? []);
  return imagesWithin(images, maxImageBytes).images;
}

/** An `image` block a model can be given (an image type, valid base64), else undefined. */
function imageOf(block: unknown): ToolImage | undefined {
  const b = block as Record<string, unknown> | null;
  return b?.type === 'image' &&
    typeof b.data === 'string' &&
    typeof b.mimeType === 'string' &&
    b.mimeType.startsWith('image/') &&
    BASE64.test(b.data)
    ? { mimeType: b.mimeType, data: b.data }
    : undefined;
}

/** The text of an error result (`isError`), as the server wrote it. */
export function errorResultText(result: McpToolResultLike): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  return blocks
    .map((b) => (typeof (b as { text?: unknown })?.text === 'string' ? (b as { text: string }).text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function carriesText(block: unknown): boolean {
  const b = block as Record<string, unknown> | null;
  if (!b || typeof b !== 'object') return false;
  if (typeof b.text === 'string') return true;
  return b.type === 'resource' || b.type === 'resource_link';
}

export function blockToText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (!block || typeof block !== 'object') return String(block);
  const b = block as Record<string, unknown>;
  if (b.type === 'resource_link') return resourceLinkText(b);
  if (b.type === 'resource' && b.resource && typeof b.resource === 'object')
    return resourceContentsText(b.resource as Record<string, unknown>);
  if (typeof b.text === 'string') return b.text;
  return binaryLabel(b);
}

/** `[resource link: Blob Resource 1 <demo://…> text/plain] Resource 1: binary blob resource` */
function resourceLinkText(b: Record<string, unknown>): string {
  const name = typeof b.name === 'string' ? b.name : '';
  const title = typeof b.title === 'string' && b.title !== name ? ` (${b.title})` : '';
  const mime = typeof b.mimeType === 'string' ? ` ${b.mimeType}` : '';
  const size = typeof b.size === 'number' ? `, ${b.size} bytes` : '';
  const description = typeof b.description === 'string' ? ` ${b.description}` : '';
  return `[resource link: ${name}${title} <${String(b.uri)}>${mime}${size}]${description}`;
}

const TEXT_TYPE = /^text\/|[/+](json|xml|yaml|csv|javascript|markdown)$|^application\/(x-)?(sh|sql|toml)$/;

/** One resource's contents (embedded in a result, or read): a header naming it, then its text. */
export function resourceContentsText(r: Record<string, unknown>): string {
  const mime = typeof r.mimeType === 'string' ? r.mimeType : undefined;
  const header = `[resource <${String(r.uri)}>${mime ? ` ${mime}` : ''}]`;
  if (typeof r.text === 'string') return `${header}\n${r.text}`;
  if (typeof r.blob === 'string') {
    if (mime && TEXT_TYPE.test(mime)) return `${header}\n${Buffer.from(r.blob, 'base64').toString('utf8')}`;
    return binaryLabel({ type: 'resource', uri: r.uri, mimeType: mime, data: r.blob });
  }
  return header;
}

/** `[image: image/png, 1234 bytes]`; a blob resource also says its uri. */
function binaryLabel(b: Record<string, unknown>): string {
  const mime = b.mimeType ?? b.mime_type;
  const base64 = typeof b.data === 'string' ? b.data : '';
  const kind = String(b.type ?? 'content');
  const uri = typeof b.uri === 'string' ? ` <${b.uri}>` : '';
  const size = base64 ? `, ${Math.floor((base64.replace(/=+$/, '').length * 3) / 4)} bytes` : '';
  return `[${kind}${uri}${mime ? `: ${String(mime)}` : ''}${size}]`;
}
