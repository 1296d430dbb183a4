import { describe, expect, it } from 'vitest';
import type { IncomingFile } from '../src/chat.js';
import { downloadWithin } from '../src/download-within.js';

const CAP = 1000;

/** A file whose download answers with `bytes` (as the fetch hands them, decoded) and `headers`. */
function fileAnswering(bytes: number, headers: Record<string, string>) {
  const seen = { cancelled: false, pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= bytes) return controller.close();
      const part = Math.min(100, bytes - seen.pulled);
      seen.pulled += part;
      controller.enqueue(new Uint8Array(part).fill(0x61));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  const file: IncomingFile = { name: 'f.bin', download: async () => new Response(body, { headers }) };
  return { file, seen };
}

describe('downloadWithin', () => {
  it('does not judge a compressed body by its Content-Length: the cap is on the bytes as they come decoded', async () => {
    // Incompressible bytes grow a little when compressed: the wire length is over the cap, the file is not.
    const { file } = fileAnswering(CAP, { 'content-encoding': 'gzip', 'content-length': String(CAP + 30) });
    const got = await downloadWithin(file, CAP);
    expect(got).toBeInstanceOf(Uint8Array);
    expect((got as Uint8Array).byteLength).toBe(CAP);
  });

  it('refuses a compressed body over the cap without quoting its compressed length', async () => {
    const { file, seen } = fileAnswering(CAP * 50, { 'content-encoding': 'gzip', 'content-length': '1234' });
    expect(await downloadWithin(file, CAP)).toBe(`too large: over the limit of ${CAP} bytes`);
    expect(seen.cancelled).toBe(true);
  });

  it('cancels the unread body when its Content-Length is over the cap', async () => {
    const { file, seen } = fileAnswering(CAP * 50, { 'content-length': String(CAP * 50) });
    expect(await downloadWithin(file, CAP)).toBe(`too large: ${CAP * 50} bytes, over the limit of ${CAP}`);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(CAP * 50);
  });
});
