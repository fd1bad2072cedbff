// Keeps the first `capBytes` of a stream and remembers whether anything was dropped.
export class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly capBytes: number) {}

  push(chunk: Buffer): void {
    const room = this.capBytes - this.size;
    if (room <= 0) {
      this.truncated ||= chunk.length > 0;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept.length < chunk.length) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}
