import type { ToolImage } from './types.js';

/**
 * Largest image a tool may give the model, in bytes (decoded): 5 MiB, the smallest per-image limit among the model
 * vendors (Anthropic's). A larger one would fail the whole model call, or cost a context's worth of tokens.
 */
export const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** An image's size in bytes, from its base64 (padding left out). */
export function imageBytes(image: ToolImage): number {
  return Math.floor((image.data.replace(/=+$/, '').length * 3) / 4);
}

/**
 * The images a tool returned that the model may be given (each at most `maxBytes`), and for each larger one a note
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
    const bytes = imageBytes(image);
    if (bytes <= maxBytes) kept.push(image);
    else
      notes.push(
        `[image dropped: ${image.mimeType}, ${bytes} bytes, larger than the ${maxBytes} bytes an image may have]`,
      );
  }
  return { images: kept, notes };
}
