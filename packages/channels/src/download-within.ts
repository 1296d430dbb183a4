import type { IncomingFile } from './chat.js';
import { isChannelError } from './errors.js';

/**
 * The file's bytes, or why not (a line for the chat): over `maxBytes` as the platform announced it (then it is not
 * downloaded at all), as its `Content-Length` says (its body is not read; not for a compressed body, whose length
 * there is the compressed one), or as it comes: the body is read chunk by chunk and the request cancelled as soon as
 * the bytes pass the cap, so a file whose size was not announced (or announced wrongly) never costs more memory than
 * the cap and one chunk. A file whose address is not the platform's own (`foreign-file-address`) is not downloaded.
 */
export async function downloadWithin(file: IncomingFile, maxBytes: number): Promise<Uint8Array | string> {
  const over = (size?: number) =>
    size === undefined
      ? `too large: over the limit of ${maxBytes} bytes`
      : `too large: ${size} bytes, over the limit of ${maxBytes}`;
  if (file.size !== undefined && file.size > maxBytes) return over(file.size);
  const request = new AbortController();
  let response: Response | undefined;
  try {
    response = await file.download(request.signal);
    const announced = announcedLength(response.headers);
    if (announced !== undefined && announced > maxBytes) return over(announced);
    return (await readWithin(response.body, maxBytes)) ?? over();
  } catch (error) {
    if (isChannelError(error) && error.code === 'foreign-file-address') return error.message;
    throw error;
  } finally {
    // A body left unread (refused on its length, or a failure) is cancelled, and the request aborted: nothing more
    // comes in. A body being read was cancelled by its reader (`readWithin`).
    const body = response?.body;
    if (body && !body.locked) await body.cancel().catch(() => undefined);
    request.abort();
  }
}

/**
 * The body's length as its `Content-Length` says, when that is the length of the bytes the cap applies to: not for
 * a compressed body (`Content-Encoding`), whose announced length is the compressed one while fetch hands over the
 * bytes decoded (then only the bytes as they come are counted).
 */
function announcedLength(headers: Headers): number | undefined {
  const encoding = headers.get('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') return undefined;
  const length = Number(headers.get('content-length') ?? Number.NaN);
  return Number.isFinite(length) ? length : undefined;
}

/** The whole body, or undefined as soon as it passes `maxBytes` (then the rest is never read). */
async function readWithin(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    throw error;
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, total);
}
