/**
 * Writes text as UTF-8 into one growing buffer, character by character from ranges of strings
 * already in memory, so a page's body is built without a string per piece. Buffer.from gives the
 * same bytes for the same text (a lone surrogate becomes U+FFFD in both).
 */
export class ByteWriter {
  #bytes: Buffer;
  #length = 0;

  constructor(capacity: number) {
    this.#bytes = Buffer.allocUnsafeSlow(capacity);
  }

  /** Starts over, keeping the buffer unless it grew past `keep` bytes for one large page. */
  reset(keep: number): void {
    this.#length = 0;
    if (this.#bytes.length > keep) this.#bytes = Buffer.allocUnsafeSlow(keep);
  }

  /** Room for `units` more UTF-16 code units of any text (at most 3 bytes each). */
  reserve(units: number): void {
    const needed = this.#length + units * 3;
    if (needed <= this.#bytes.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(needed, this.#bytes.length * 2));
    this.#bytes.copy(grown, 0, 0, this.#length);
    this.#bytes = grown;
  }

  /** Writes `text[from, to)`. Call reserve first. */
  range(text: string, from: number, to: number): void {
    const bytes = this.#bytes;
    let at = this.#length;
    let index = from;
    // Most text is ASCII: one byte per character, until the first that is not.
    for (; index < to; index++) {
      const code = text.charCodeAt(index);
      if (code >= 0x80) break;
      bytes[at++] = code;
    }
    this.#length = at;
    if (index < to) this.#encode(text, index, to);
  }

  /** The rest of a range from its first non-ASCII character, encoded as UTF-8. */
  #encode(text: string, from: number, to: number): void {
    const bytes = this.#bytes;
    let at = this.#length;
    for (let index = from; index < to; index++) {
      const code = text.charCodeAt(index);
      if (code < 0x80) {
        bytes[at++] = code;
      } else if (code < 0x800) {
        bytes[at++] = 0xc0 | (code >> 6);
        bytes[at++] = 0x80 | (code & 0x3f);
      } else if (code >= 0xd800 && code <= 0xdfff) {
        const next = index + 1 < to ? text.charCodeAt(index + 1) : 0;
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const point = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          bytes[at++] = 0xf0 | (point >> 18);
          bytes[at++] = 0x80 | ((point >> 12) & 0x3f);
          bytes[at++] = 0x80 | ((point >> 6) & 0x3f);
          bytes[at++] = 0x80 | (point & 0x3f);
          index++;
        } else {
          bytes[at++] = 0xef;
          bytes[at++] = 0xbf;
          bytes[at++] = 0xbd;
        }
      } else {
        bytes[at++] = 0xe0 | (code >> 12);
        bytes[at++] = 0x80 | ((code >> 6) & 0x3f);
        bytes[at++] = 0x80 | (code & 0x3f);
      }
    }
    this.#length = at;
  }

  /** Writes bytes already encoded (a constant piece of every row, say). Call reserve first. */
  bytes(piece: Uint8Array): void {
    const bytes = this.#bytes;
    let at = this.#length;
    for (let index = 0; index < piece.length; index++) bytes[at++] = piece[index] as number;
    this.#length = at;
  }

  /** Writes all of `text`, reserving room for it. */
  text(text: string): void {
    this.reserve(text.length);
    this.range(text, 0, text.length);
  }

  /** Writes one ASCII character. Call reserve first. */
  ascii(code: number): void {
    this.#bytes[this.#length++] = code;
  }

  /** Writes a number of `width` decimal digits, zero-padded. Call reserve first. */
  digits(value: number, width: number): void {
    const bytes = this.#bytes;
    for (let place = this.#length + width - 1; place >= this.#length; place--) {
      bytes[place] = 0x30 + (value % 10);
      value = Math.floor(value / 10);
    }
    this.#length += width;
  }

  /** The bytes written, in a buffer of their own. */
  finish(): Buffer {
    const body = Buffer.allocUnsafeSlow(this.#length);
    this.#bytes.copy(body, 0, 0, this.#length);
    return body;
  }
}
