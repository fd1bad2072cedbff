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

/** One byte stream's text, chunk by chunk, each piece with the byte offset it starts at. */
export class Utf8Chunks {
  private held: Buffer = Buffer.alloc(0);
  private heldAt = 0;

  /** The whole characters so far; `offset` is the chunk's byte offset in the stream (consecutive chunks follow on). */
  push(chunk: Buffer, offset = this.heldAt + this.held.length): { text: string; offset: number } {
    // After a gap (output dropped in between, which the stream marks) the held bytes have lost their end.
    const lead = this.held.length && offset === this.heldAt + this.held.length ? this.held : null;
    const bytes = lead ? Buffer.concat([lead, chunk]) : chunk;
    const start = lead ? this.heldAt : offset;
    const whole = wholeCharactersLength(bytes);
    this.held = bytes.subarray(whole);
    this.heldAt = start + whole;
    return { text: bytes.subarray(0, whole).toString('utf8'), offset: start };
  }

  /** What is still held (a character the stream never completed), as text; empty when nothing is. */
  end(): string {
    const rest = this.held.toString('utf8');
    this.held = Buffer.alloc(0);
    return rest;
  }
}
