// read_file of a picture: the formats every vision model takes (PNG, JPEG, GIF, WebP), recognised by their first
// bytes rather than their names. The result is content blocks: a text that names the image (path, type, size) for
// every reader, and the image itself, which birdie gives to models that can see images.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { FilesystemError } from './errors.mjs';

/** Larger images are named, not attached: vendors cap one image at about 5 MB of base64 (Anthropic's limit). */
export const IMAGE_LIMIT_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);

/** @param {Buffer} head the file's first bytes @returns {string | undefined} the image's MIME type */
export function imageType(head) {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  const ascii = head.subarray(0, 12).toString('latin1');
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'image/gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * The image at `path` as content blocks, or undefined when the file is not one of the four formats. A regular file
 * only (the caller's target is confined); a special file is never opened for a read that could block.
 * @param {string} path @param {string} shown
 * @returns {Promise<{ content: Array<{ type: 'text'; text: string } | { type: 'image'; mimeType: string; data: string }> } | undefined>}
 */
export async function readImage(path, shown) {
  // O_NONBLOCK: a FIFO named like a picture opens at once instead of waiting for a writer (and is then refused).
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const head = Buffer.alloc(12);
    await handle.read(head, 0, 12, 0);
    const mimeType = imageType(head);
    if (!mimeType) return undefined;
    const named = `Image file "${shown}": ${mimeType}, ${info.size} bytes.`;
    if (info.size > IMAGE_LIMIT_BYTES) {
      return {
        content: [
          {
            type: 'text',
            text: `${named} It is larger than ${IMAGE_LIMIT_BYTES} bytes, so it is not attached; only its name is shown.`,
          },
        ],
      };
    }
    const bytes = await handle.readFile();
    if (bytes.length !== info.size) {
      throw new FilesystemError('changed', `"${shown}" changed while it was read; try again.`);
    }
    return {
      content: [
        { type: 'text', text: `${named} The image is attached for models that can see images.` },
        { type: 'image', mimeType, data: bytes.toString('base64') },
      ],
    };
  } finally {
    await handle.close();
  }
}
