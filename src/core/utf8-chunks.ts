// Output arrives in chunks cut anywhere, also inside a multi-byte UTF-8 character; decoding each chunk on its
// own would turn both halves of such a character into U+FFFD. This holds a cut character's first bytes back
// until the chunk that completes it (StringDecoder does the same, but does not say where its text starts).

/** How many leading bytes end on a character boundary: a sequence cut off at the end is left out. */
export function wholeCharactersLength(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

export interface TextPiece {
  text: string;
  /** The byte offset of its first byte in the stream. */
  offset: number;
}

/** One byte stream's text, chunk by chunk, each piece with the byte offset it starts at. */
export class Utf8Chunks {
  private held: Buffer = Buffer.alloc(0);
  private heldAt = 0;

  /** The byte offset the held bytes start at: where a reader resumes to read the next whole character. */
  get resumeOffset(): number {
    return this.heldAt;
  }

  /**
   * The whole characters so far; `offset` is the chunk's byte offset in the stream. A chunk that does not
   * follow on from the held bytes (output in between went elsewhere or was dropped) first gives those
   * bytes out as they are, as a piece of their own.
   */
  push(chunk: Buffer, offset = this.heldAt + this.held.length): TextPiece[] {
    const pieces: TextPiece[] = [];
    if (this.held.length && offset !== this.heldAt + this.held.length) pieces.push(...this.end());
    const follows = this.held.length > 0;
    const bytes = follows ? Buffer.concat([this.held, chunk]) : chunk;
    const start = follows ? this.heldAt : offset;
    const whole = wholeCharactersLength(bytes);
    this.held = bytes.subarray(whole);
    this.heldAt = start + whole;
    if (whole) pieces.push({ text: bytes.subarray(0, whole).toString('utf8'), offset: start });
    return pieces;
  }

  /** What is still held (a character the stream never completed), as a piece; none when nothing is. */
  end(): TextPiece[] {
    if (!this.held.length) return [];
    const piece = { text: this.held.toString('utf8'), offset: this.heldAt };
    this.heldAt += this.held.length;
    this.held = Buffer.alloc(0);
    return [piece];
  }
}
