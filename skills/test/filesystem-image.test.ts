import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Entrypoint } from '@birdie/entrypoints';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IMAGE_LIMIT_BYTES } from '../filesystem/lib/image.mjs';
import { entrypointRefusal, toolEntrypoint } from './helpers.js';

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;

/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 1)]);
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(20, 0)]);
const WEBP = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([20, 0, 0, 0]),
  Buffer.from('WEBPVP8 '),
  Buffer.alloc(12),
]);

let work: TempDir;
let root: string;
let entrypoint: Entrypoint;

const read = async (args: Record<string, unknown>) => {
  entrypoint ??= await toolEntrypoint('filesystem', 'read_file');
  return entrypoint.run(args, { cwd: root, timeoutMs: 10_000 });
};

beforeEach(async () => {
  work = await makeTempDir('birdie-fs-image-');
  root = join(work.path, 'root');
  await mkdir(root);
});

afterEach(async () => {
  await work.cleanup();
});

describe('filesystem: read_file of an image', () => {
  it('returns PNG, JPEG, GIF and WebP files as images, named with path, type and size', async () => {
    const files = { 'shots/dot.png': PNG, 'photo.JPG': JPEG, 'anim.gif': GIF, 'pic.webp': WEBP };
    await mkdir(join(root, 'shots'));
    for (const [name, bytes] of Object.entries(files)) await writeFile(join(root, name), bytes);
    const types = {
      'shots/dot.png': 'image/png',
      'photo.JPG': 'image/jpeg',
      'anim.gif': 'image/gif',
      'pic.webp': 'image/webp',
    };
    for (const [name, bytes] of Object.entries(files)) {
      const type = types[name as keyof typeof types];
      expect(await read({ path: name }), name).toEqual({
        output: `Image file "${name}": ${type}, ${bytes.length} bytes. The image is attached for models that can see images.`,
        truncated: false,
        images: [{ mimeType: type, data: bytes.toString('base64') }],
      });
    }
  });

  it('names an image too large to attach without attaching it', async () => {
    await writeFile(join(root, 'huge.png'), Buffer.concat([PNG, Buffer.alloc(IMAGE_LIMIT_BYTES)]));
    const result = await read({ path: 'huge.png' });
    expect(result.images).toBeUndefined();
    expect(result.output).toBe(
      `Image file "huge.png": image/png, ${PNG.length + IMAGE_LIMIT_BYTES} bytes. It is larger than ` +
        `${IMAGE_LIMIT_BYTES} bytes, so it is not attached; only its name is shown.`,
    );
  });

  it('goes by the content: a text file named .png is text, a picture named .txt is binary; a range is text only', async () => {
    await writeFile(join(root, 'notes.png'), 'not a picture\n');
    await writeFile(join(root, 'dot.txt'), PNG);
    await writeFile(join(root, 'dot.png'), PNG);
    expect(await read({ path: 'notes.png' })).toEqual({ output: 'not a picture\n', truncated: false });
    const refuse = (args: Record<string, unknown>) =>
      entrypointRefusal(() => read(args), JSON.stringify(args));
    expect(await refuse({ path: 'dot.txt' })).toMatch(/binary file/);
    expect(await refuse({ path: 'dot.png', start_line: 1, end_line: 2 })).toMatch(/binary file/);
  });

  it('never blocks on a pipe named like a picture', async () => {
    execFileSync('mkfifo', [join(root, 'pipe.png')]);
    const message = await entrypointRefusal(() => read({ path: 'pipe.png' }), 'pipe.png');
    expect(message).toMatch(/not a regular file/);
  });
});
