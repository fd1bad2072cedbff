// Follows the answers coming back on a relayed connection, so that a request the relay refuses is
// answered only after the sandbox has answered every request sent before it (RFC 9112 §6.3: no body
// after HEAD, 1xx, 204 and 304; chunked; Content-Length; otherwise the body lasts until the close).
import { MalformedBody, MessageBody } from './message-body.js';
import { headEnd, MAX_HEAD_BYTES } from './request-head.js';

type Framing = 'interim' | 'until-close' | 'chunked' | number;

export class AnswerCounter {
  /** Methods of the requests sent and not yet fully answered, oldest first. */
  private readonly awaiting: string[] = [];
  private partialHead: Buffer | null = null;
  private body: MessageBody | null = null;
  /** An answer without a length: the connection ends with it, so nothing after it can be answered. */
  untilClose = false;

  sent(method: string): void {
    this.awaiting.push(method);
  }

  /** Every request sent has its whole answer back (and the connection is still usable). */
  get settled(): boolean {
    return this.awaiting.length === 0 && this.body === null && this.partialHead === null && !this.untilClose;
  }

  received(chunk: Buffer): void {
    if (this.untilClose) return;
    const buffer = this.partialHead ? Buffer.concat([this.partialHead, chunk]) : chunk;
    this.partialHead = null;
    let offset = 0;
    try {
      while (offset < buffer.length) {
        if (this.body) {
          offset += this.body.take(buffer, offset);
          if (this.body.done) this.answered();
          continue;
        }
        const end = headEnd(buffer, offset);
        if (end === -1) {
          if (buffer.length - offset > MAX_HEAD_BYTES) this.untilClose = true;
          else this.partialHead = buffer.subarray(offset);
          return;
        }
        const framing = answerFraming(buffer.toString('latin1', offset, end - 4), this.awaiting[0]);
        offset = end;
        if (framing === 'interim') continue;
        if (framing === 'until-close') {
          this.untilClose = true;
          return;
        }
        this.body = new MessageBody(framing);
        if (this.body.done) this.answered();
      }
    } catch (err) {
      if (!(err instanceof MalformedBody)) throw err;
      this.untilClose = true;
    }
  }

  private answered(): void {
    this.body = null;
    this.awaiting.shift();
  }
}

function answerFraming(head: string, method: string | undefined): Framing {
  const status = Number(head.slice(9, 12));
  if (!head.startsWith('HTTP/1.') || !Number.isInteger(status)) return 'until-close';
  if (status >= 100 && status < 200) return status === 101 ? 'until-close' : 'interim';
  if (method === 'HEAD' || status === 204 || status === 304) return 0;
  let contentLength: number | null = null;
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    if (name === 'transfer-encoding') return /(^|,)\s*chunked\s*$/i.test(line.slice(colon + 1)) ? 'chunked' : 'until-close';
    if (name === 'content-length') {
      const value = line.slice(colon + 1).trim();
      if (!/^\d{1,15}$/.test(value) || (contentLength !== null && contentLength !== Number(value))) return 'until-close';
      contentLength = Number(value);
    }
  }
  return contentLength ?? 'until-close';
}
