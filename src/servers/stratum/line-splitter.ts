/**
 * Splits a byte stream into newline-terminated lines with a hard cap on line length, so a client
 * that never sends "\n" cannot make the pool buffer without bound. Empty lines and a trailing
 * "\r" are dropped (XMRig sends neither, other miners might).
 */
export class LineSplitter {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  readonly #maxLineBytes: number;

  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Returns the complete lines in `chunk`, or `undefined` when the line limit was exceeded. */
  push(chunk: Buffer): string[] | undefined {
    const lines: string[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      if (this.#pendingBytes + piece.length > this.#maxLineBytes) return undefined;
      const line = this.#pendingBytes > 0 ? Buffer.concat([...this.#pending, piece]) : piece;
      this.#pending = [];
      this.#pendingBytes = 0;
      const text = line.toString('utf8').replace(/\r$/, '');
      if (text.trim().length > 0) lines.push(text);
      start = newline + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#pendingBytes += rest.length;
      if (this.#pendingBytes > this.#maxLineBytes) return undefined;
      this.#pending.push(Buffer.from(rest));
    }
    return lines;
  }
}
