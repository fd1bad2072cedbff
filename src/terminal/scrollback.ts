// The recent output of a terminal session, replayed when a connection re-attaches (like tmux).

export const SCROLLBACK_BYTES = 64 * 1024;

export class Scrollback {
  private chunks: Buffer[] = [];
  private sizeBytes = 0;
  private trimmed = false;

  constructor(private readonly capacityBytes = SCROLLBACK_BYTES) {}

  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.sizeBytes += chunk.length;
    while (this.sizeBytes > this.capacityBytes) {
      const excess = this.sizeBytes - this.capacityBytes;
      const first = this.chunks[0];
      if (first.length <= excess) {
        this.chunks.shift();
        this.sizeBytes -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.sizeBytes -= excess;
      }
      this.trimmed = true;
    }
  }

  /** Once older output was dropped, replay starts at a line boundary so no half escape sequence or
   * half character leads the replay. */
  contents(): Buffer {
    const all = Buffer.concat(this.chunks, this.sizeBytes);
    if (!this.trimmed) return all;
    const newline = all.indexOf(0x0a);
    return newline === -1 ? all : all.subarray(newline + 1);
  }
}
