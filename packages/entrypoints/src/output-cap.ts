/**
 * Keeps the first bytes and the last bytes of a stream and counts what fell in between, so memory stays
 * bounded however much a command prints, and the model still sees how the output ended (often the error).
 */
export class OutputCap {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private total = 0;

  /** `tailShare` is the fraction of `limit` kept from the end (1 keeps only the end). */
  constructor(limit: number, tailShare = 0.2) {
    const max = Math.max(0, Math.floor(limit));
    this.tailLimit = Math.floor(max * tailShare);
    this.headLimit = max - this.tailLimit;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.headLimit - this.headBytes;
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.head.push(part);
      this.headBytes += part.length;
      if (part.length === chunk.length) return;
      chunk = chunk.subarray(part.length);
    }
    if (this.tailLimit === 0) return;
    if (chunk.length >= this.tailLimit) {
      this.tail = Buffer.from(chunk.subarray(chunk.length - this.tailLimit));
    } else {
      const keep = Math.min(this.tail.length, this.tailLimit - chunk.length);
      this.tail = Buffer.concat([this.tail.subarray(this.tail.length - keep), chunk]);
    }
  }

  get bytesSeen(): number {
    return this.total;
  }

  get dropped(): number {
    return this.total - this.headBytes - this.tail.length;
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  /** The kept text; when bytes were dropped, a one-line note says how many, between head and tail. */
  text(): string {
    const head = Buffer.concat(this.head);
    if (!this.truncated) return Buffer.concat([head, this.tail]).toString('utf8');
    const note = `\n[… ${this.dropped} bytes of output dropped …]\n`;
    return trimEnd(head).toString('utf8') + note + trimStart(this.tail).toString('utf8');
  }
}

/** Drops a UTF-8 sequence cut at the end so the text does not end in U+FFFD. */
function trimEnd(buf: Buffer): Buffer {
  let k = buf.length - 1;
  let back = 0;
  while (k >= 0 && back < 4 && ((buf[k] ?? 0) & 0xc0) === 0x80) {
    k -= 1;
    back += 1;
  }
  if (k < 0) return buf;
  const lead = buf[k] ?? 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? buf.subarray(0, k) : buf;
}

function trimStart(buf: Buffer): Buffer {
  let k = 0;
  while (k < buf.length && k < 4 && ((buf[k] ?? 0) & 0xc0) === 0x80) k += 1;
  return buf.subarray(k);
}

/** Cuts a string to at most `limit` UTF-8 bytes with the same head/tail note as OutputCap. */
export function capText(text: string, limit: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= limit) return { text, truncated: false };
  const cap = new OutputCap(limit);
  cap.push(Buffer.from(text));
  return { text: cap.text(), truncated: true };
}
