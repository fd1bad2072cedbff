// The framing paddock-agent (agent/paddock-agent.c) speaks: one type byte, a 4-byte big-endian length, the data.

export const FrameType = {
  request: 'R',
  stdin: 'I',
  stdinEnd: 'E',
  kill: 'K',
  started: 'S',
  stdout: 'O',
  stderr: 'F',
  exit: 'X',
  notStarted: 'N',
} as const;

/** The agent sends output in chunks of at most 64 KiB; anything far larger is a broken or hostile stream. */
export const maxIncomingFrameBytes = 1 << 20;
/** Stdin goes out in frames of at most this size (the agent accepts up to 4 MiB per frame). */
const stdinFrameBytes = 1 << 20;

export interface Frame {
  type: string;
  data: Buffer;
}

export function encodeFrame(type: string, data: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(data.length, 1);
  return Buffer.concat([header, data]);
}

export interface AgentCommand {
  argv: string[];
  cwd: string;
  /** `KEY=value` entries added to the sandbox environment. */
  env: string[];
  stdin?: Buffer;
}

/** The request frame followed by stdin and its end, ready to write in one go. */
export function encodeCommand(command: AgentCommand): Buffer {
  const strings = [command.cwd, String(command.argv.length), ...command.argv, String(command.env.length), ...command.env];
  if (strings.some((value) => value.includes('\0'))) throw new Error('command, arguments, cwd and env may not contain NUL bytes');
  const frames = [encodeFrame(FrameType.request, Buffer.from(strings.map((value) => `${value}\0`).join(''), 'utf8'))];
  const stdin = command.stdin ?? Buffer.alloc(0);
  for (let offset = 0; offset < stdin.length; offset += stdinFrameBytes) {
    frames.push(encodeFrame(FrameType.stdin, stdin.subarray(offset, offset + stdinFrameBytes)));
  }
  frames.push(encodeFrame(FrameType.stdinEnd));
  return Buffer.concat(frames);
}

/** The agent's side of a connection broke the protocol: anything in the sandbox can forge its frames. */
export class AgentProtocolError extends Error {}

/**
 * Collects bytes from the agent and hands out whole frames. Chunks are kept as they come and joined once
 * per frame: joining on every push would copy a frame trickled in small chunks over and over (a 1 MiB
 * frame in 16-byte chunks: ~34 GB of copying).
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Bytes held for a frame not yet complete: at most a frame's header and maximum size plus one chunk. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  push(chunk: Buffer): Frame[] {
    if (chunk.length) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const frames: Frame[] = [];
    while (this.buffered >= 5) {
      const header = this.peek(5);
      const length = header.readUInt32BE(1);
      if (length > maxIncomingFrameBytes) throw new AgentProtocolError(`agent sent a ${length}-byte frame (at most ${maxIncomingFrameBytes})`);
      if (this.buffered < 5 + length) break;
      const frame = this.take(5 + length);
      frames.push({ type: String.fromCharCode(frame[0]), data: frame.subarray(5) });
    }
    return frames;
  }

  private peek(bytes: number): Buffer {
    if (this.chunks[0].length < bytes) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, bytes);
  }

  private take(bytes: number): Buffer {
    if (this.chunks[0].length < bytes) this.chunks = [Buffer.concat(this.chunks)];
    const first = this.chunks[0];
    if (first.length === bytes) this.chunks.shift();
    else this.chunks[0] = first.subarray(bytes);
    this.buffered -= bytes;
    return first.subarray(0, bytes);
  }
}

/** An exit frame's status: an exit code or 128 + a signal number, in decimal. */
export function decodeExitStatus(data: Buffer): number {
  const text = data.toString('latin1');
  if (!/^\d{1,3}$/.test(text) || Number(text) > 255) throw new AgentProtocolError(`agent sent an exit status that is not one: ${JSON.stringify(text.slice(0, 20))}`);
  return Number(text);
}
