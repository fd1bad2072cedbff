// Follows the frames a WebSocket server sends, only far enough to know where one ends: when the node
// behind a forwarded WebSocket goes away, a close frame may be added for the client only between two
// frames (one written mid-frame would corrupt the stream), and not after the node closed on its own.

/** 4003: the node holding the sandbox went away (the terminal's other codes are in terminal/routes.ts). */
export const NODE_LOST_CLOSE_CODE = 4003;

export class FrameBoundary {
  private header: Buffer = Buffer.alloc(0);
  private payloadLeft = 0;
  /** The server sent a close frame: the connection ends on purpose. */
  closeSent = false;

  get atBoundary(): boolean {
    return this.payloadLeft === 0 && this.header.length === 0;
  }

  push(chunk: Buffer): void {
    let data = chunk;
    while (data.length) {
      if (this.payloadLeft > 0) {
        const taken = Math.min(this.payloadLeft, data.length);
        this.payloadLeft -= taken;
        data = data.subarray(taken);
        continue;
      }
      this.header = this.header.length ? Buffer.concat([this.header, data]) : data;
      const frame = frameHead(this.header);
      if (!frame) {
        this.header = Buffer.from(this.header);
        return;
      }
      if (frame.opcode === 0x8) this.closeSent = true;
      data = this.header.subarray(frame.headLength);
      this.header = Buffer.alloc(0);
      this.payloadLeft = frame.payloadLength;
    }
  }
}

function frameHead(buffer: Buffer): { opcode: number; headLength: number; payloadLength: number } | null {
  if (buffer.length < 2) return null;
  const short = buffer[1] & 0x7f;
  const extended = short === 126 ? 2 : short === 127 ? 8 : 0;
  const headLength = 2 + extended + (buffer[1] & 0x80 ? 4 : 0);
  if (buffer.length < headLength) return null;
  const payloadLength = short === 126 ? buffer.readUInt16BE(2) : short === 127 ? Number(buffer.readBigUInt64BE(2)) : short;
  return { opcode: buffer[0] & 0x0f, headLength, payloadLength };
}

/** An unmasked close frame, as a server sends it. */
export function closeFrame(code: number, reason: string): Buffer {
  const text = Buffer.from(reason);
  const frame = Buffer.alloc(4 + text.length);
  frame[0] = 0x88;
  frame[1] = 2 + text.length;
  frame.writeUInt16BE(code, 2);
  text.copy(frame, 4);
  return frame;
}
