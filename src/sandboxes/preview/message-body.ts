// Where the body of one relayed message ends: of a request, so the relay knows where the next request
// starts and can count it; of an answer, so it knows when the sandbox has answered everything it was
// sent (RFC 9112 §6.3 and §7.1: Content-Length bytes, or chunks up to the last chunk and its trailers).
// Bytes are only measured, never copied or decoded.

type ChunkState = 'size' | 'extension' | 'sizeLf' | 'data' | 'dataCr' | 'dataLf' | 'trailerStart' | 'trailerLine' | 'trailerLf' | 'endLf';

const MAX_SIZE_DIGITS = 12;

export class MalformedBody extends Error {}

export class MessageBody {
  private remaining: number;
  private state: ChunkState | 'done' = 'size';
  private sizeDigits = 0;

  constructor(private readonly framing: 'chunked' | number) {
    this.remaining = framing === 'chunked' ? 0 : framing;
    if (framing !== 'chunked' && framing === 0) this.state = 'done';
  }

  get done(): boolean {
    return this.framing === 'chunked' ? this.state === 'done' : this.remaining === 0;
  }

  /** How many bytes of `buffer` from `offset` belong to this body (all of them when it goes on). */
  take(buffer: Buffer, offset: number): number {
    const available = buffer.length - offset;
    if (this.framing !== 'chunked') {
      const taken = Math.min(available, this.remaining);
      this.remaining -= taken;
      return taken;
    }
    let at = offset;
    while (at < buffer.length && this.state !== 'done') {
      if (this.state === 'data') {
        const taken = Math.min(buffer.length - at, this.remaining);
        this.remaining -= taken;
        at += taken;
        if (this.remaining === 0) this.state = 'dataCr';
        continue;
      }
      this.step(buffer[at]);
      at++;
    }
    return at - offset;
  }

  private step(byte: number): void {
    switch (this.state) {
      case 'size': {
        const digit = hexValue(byte);
        if (digit >= 0 && this.sizeDigits < MAX_SIZE_DIGITS) {
          this.remaining = this.remaining * 16 + digit;
          this.sizeDigits++;
        } else if (this.sizeDigits > 0 && (byte === 0x3b || byte === 0x20 || byte === 0x09)) this.state = 'extension';
        else if (this.sizeDigits > 0 && byte === 0x0d) this.state = 'sizeLf';
        else throw new MalformedBody('bad chunk size');
        return;
      }
      case 'extension':
        if (byte === 0x0d) this.state = 'sizeLf';
        else if (byte === 0x0a) throw new MalformedBody('bare LF in a chunk extension');
        return;
      case 'sizeLf':
        if (byte !== 0x0a) throw new MalformedBody('chunk size line not ended by CRLF');
        this.sizeDigits = 0;
        this.state = this.remaining === 0 ? 'trailerStart' : 'data';
        return;
      case 'dataCr':
        if (byte !== 0x0d) throw new MalformedBody('chunk data not followed by CRLF');
        this.state = 'dataLf';
        return;
      case 'dataLf':
        if (byte !== 0x0a) throw new MalformedBody('chunk data not followed by CRLF');
        this.state = 'size';
        return;
      case 'trailerStart':
        if (byte === 0x0d) this.state = 'endLf';
        else if (byte === 0x0a) throw new MalformedBody('bare LF in trailers');
        else this.state = 'trailerLine';
        return;
      case 'trailerLine':
        if (byte === 0x0d) this.state = 'trailerLf';
        else if (byte === 0x0a) throw new MalformedBody('bare LF in trailers');
        return;
      case 'trailerLf':
        if (byte !== 0x0a) throw new MalformedBody('trailer line not ended by CRLF');
        this.state = 'trailerStart';
        return;
      case 'endLf':
        if (byte !== 0x0a) throw new MalformedBody('last chunk not ended by CRLF');
        this.state = 'done';
        return;
    }
  }
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  return -1;
}
