import type { ToolImage } from './types.js';

/**
 * Largest image a tool may give the model, in bytes of its base64 text: 5 MiB, the smallest per-image limit among the
 * model vendors (Anthropic's, which counts the base64 a request carries, not the decoded bytes: a 4 MiB picture is
 * over it). A larger one would fail the model call, and every later one, since the image stays in the history.
 */
export const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** An image's size in bytes, from its base64 (padding left out). */
export function imageBytes(image: ToolImage): number {
  return Math.floor((image.data.replace(/=+$/, '').length * 3) / 4);
}

/**
 * The images a tool returned that the model may be given (each at most `maxBytes` of base64), and for each larger one a note
 * for the tool's text saying it was dropped and why, in the order they came: the model is told an image was there,
 * never given it. Every way a tool returns images (a `node:`/`python:` function's content, an MCP server's result)
 * goes through it.
 */
export function imagesWithin(
  images: readonly ToolImage[],
  maxBytes: number = DEFAULT_MAX_IMAGE_BYTES,
): { images: ToolImage[]; notes: string[] } {
  const kept: ToolImage[] = [];
  const notes: string[] = [];
  for (const image of images) {
    if (image.data.length <= maxBytes) kept.push(image);
    else
      notes.push(
        `[image dropped: ${image.mimeType}, ${imageBytes(image)} bytes (${image.data.length} as base64), over the ${maxBytes} bytes of base64 an image may have]`,
      );
  }
  return { images: kept, notes };
}
