/**
 * Finds the top-level `id` of a JSON object fed in pieces, without keeping the object: a message too long to read is
 * still answered with its own id (a client waits on that id; an SDK client writes `id` last, after its params).
 * Works on bytes: every byte JSON gives meaning to is ASCII, and no byte of a UTF-8 sequence is one.
 */
export class TopLevelIdScan {
  private depth = 0;
  /** The first character was read: `{` makes it an object; anything else, no id to find. */
  private started = false;
  private object = false;
  private inString = false;
  private escaped = false;
  /** At depth 1 of the object: a key comes next (`key`), its value (`value`), or neither (`other`). */
  private role: 'key' | 'value' | 'other' = 'other';
  private lastKey = '';
  /** What is being kept: the current key, the id's string or number, or nothing. */
  private capture: 'key' | 'id-string' | 'id-number' | undefined;
  private text = '';
  private found: string | number | undefined;

  /** The id read so far (a string or a number), if any. */
  get id(): string | number | undefined {
    return this.found;
  }

  feed(bytes: Uint8Array): void {
    for (const byte of bytes) this.step(byte);
  }

  private keep(byte: number) {
    // An id or key longer than this is no id anyone waits on: stop keeping it.
    if (this.text.length < 256) this.text += String.fromCharCode(byte);
    else this.capture = undefined;
  }

  private step(byte: number) {
    if (this.inString) {
      if (this.capture) this.keep(byte);
      if (this.escaped) this.escaped = false;
      else if (byte === 0x5c) this.escaped = true;
      else if (byte === 0x22) this.endString();
      return;
    }
    if (this.capture === 'id-number') {
      if (/[-+.0-9eE]/.test(String.fromCharCode(byte))) return this.keep(byte);
      const number = Number(this.text);
      if (this.text !== '' && Number.isFinite(number)) this.found = number;
      this.capture = undefined;
    }
    const char = String.fromCharCode(byte);
    if (char === ' ' || char === '\t' || char === '\r' || char === '\n') return;
    if (this.depth === 0) {
      if (this.started) return;
      this.started = true;
      if (char !== '{') return;
    }
    if (char === '{' || char === '[') {
      if (this.depth === 0) {
        this.object = true;
        this.role = 'key';
      } else if (this.depth === 1) this.role = 'other';
      this.depth += 1;
      return;
    }
    if (char === '}' || char === ']') {
      this.depth -= 1;
      return;
    }
    if (this.depth !== 1 || !this.object) {
      if (char === '"') this.inString = true;
      return;
    }
    if (char === ':') this.role = 'value';
    else if (char === ',') this.role = 'key';
    else if (char === '"') {
      this.inString = true;
      this.text = '"';
      if (this.role === 'key') this.lastKey = '';
      this.capture =
        this.role === 'key'
          ? 'key'
          : this.role === 'value' && this.lastKey === 'id'
            ? 'id-string'
            : undefined;
      if (this.role === 'value') this.role = 'other';
    } else if (this.role === 'value') {
      this.role = 'other';
      if (this.lastKey === 'id' && /[-0-9]/.test(char)) {
        this.capture = 'id-number';
        this.text = char;
      }
    }
  }

  private endString() {
    this.inString = false;
    const capture = this.capture;
    this.capture = undefined;
    if (!capture) return;
    let value: unknown;
    try {
      // The bytes kept are UTF-8: decoded before the escapes are read.
      value = JSON.parse(Buffer.from(this.text, 'latin1').toString('utf8'));
    } catch {
      return;
    }
    if (typeof value !== 'string') return;
    if (capture === 'key') this.lastKey = value;
    else this.found = value;
  }
}
