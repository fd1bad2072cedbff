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
const maxIncomingFrameBytes = 1 << 20;
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

/** Collects bytes from the agent and hands out whole frames. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const frames: Frame[] = [];
    while (this.pending.length >= 5) {
      const length = this.pending.readUInt32BE(1);
      if (length > maxIncomingFrameBytes) throw new Error(`agent sent a ${length}-byte frame`);
      if (this.pending.length < 5 + length) break;
      frames.push({ type: String.fromCharCode(this.pending[0]), data: this.pending.subarray(5, 5 + length) });
      this.pending = this.pending.subarray(5 + length);
    }
    return frames;
  }
}
