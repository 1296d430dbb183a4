import { EntrypointError } from './errors.js';
import { DEFAULT_MAX_IMAGE_BYTES, imagesWithin } from './image-limit.js';
import { capText } from './output-cap.js';
import type { ToolImage } from './types.js';

/** Base64 of an image, without padding or line breaks in odd places: what vendors accept. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A function's result as text for the model: strings as they are, anything else as indented JSON. A result in the
 * shape of an MCP tool result, `{ content: [{ type: 'text', text }, { type: 'image', data, mimeType }, …] }` and
 * nothing else, is content: its texts joined by newlines are the output, and its images are returned beside it (one
 * larger than `maxImageBytes` is left out, and the output says so: `imagesWithin`).
 */
export function resultText(
  value: unknown,
  limit: number,
  where: string,
  maxImageBytes: number = DEFAULT_MAX_IMAGE_BYTES,
): { output: string; truncated: boolean; images?: ToolImage[] } {
  const blocks = contentBlocks(value);
  if (blocks) {
    const capped = capText(blocks.texts.join('\n'), limit);
    // After the cap, so the note on an image left out is never cut.
    const { images, notes } = imagesWithin(blocks.images, maxImageBytes);
    return {
      output: [capped.text, ...notes].filter((t) => t !== '').join('\n'),
      truncated: capped.truncated,
      ...(images.length > 0 ? { images } : {}),
    };
  }
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value === undefined) text = '';
  else {
    try {
      text = JSON.stringify(value, null, 2) ?? '';
    } catch (cause) {
      throw notSerialisable(where, cause);
    }
  }
  const capped = capText(text, limit);
  return { output: capped.text, truncated: capped.truncated };
}

/** The texts and images of a `{ content: [...] }` result, or undefined when the value is anything else. */
function contentBlocks(value: unknown): { texts: string[]; images: ToolImage[] } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const content = (value as { content?: unknown }).content;
  if (keys.length !== 1 || !Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  const images: ToolImage[] = [];
  for (const block of content as unknown[]) {
    const b = block as Record<string, unknown> | null;
    if (b?.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    else if (
      b?.type === 'image' &&
      typeof b.data === 'string' &&
      typeof b.mimeType === 'string' &&
      b.mimeType.startsWith('image/') &&
      BASE64.test(b.data)
    )
      images.push({ mimeType: b.mimeType, data: b.data });
    else return undefined;
  }
  return { texts, images };
}

export function notSerialisable(where: string, cause?: unknown): EntrypointError {
  return new EntrypointError('bad-output', `${where} returned a value that is not JSON-serialisable`, {
    ...(cause === undefined ? {} : { cause }),
  });
}
