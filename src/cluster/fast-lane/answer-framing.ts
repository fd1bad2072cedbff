// Answers read as they stream through the fast lane, from a worker or from this node's own HTTP server:
// where each head ends, how its body is delimited and when the answer is complete, so the connection it
// came over can carry the next request. Bodies pass through byte for byte (a chunked body stays chunked);
// a worker's head loses the headers that belong to the hop between the nodes.
import { HOP_BY_HOP } from '../forward.js';

const HEAD_END = Buffer.from('\r\n\r\n');
const LINE_END = Buffer.from('\r\n');
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_LINE_BYTES = 4096;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const CHUNK_SIZE = /^([0-9a-fA-F]{1,15})[ \t]*(?:;[^\r\n]*)?$/;
/**
 * Headers of the hop between two nodes (and those the answer's Connection header names); the body passes
 * through as it was framed, so Transfer-Encoding and Trailer stay.
 */
const NODE_HOP: ReadonlySet<string> = new Set(HOP_BY_HOP.filter((name) => name !== 'transfer-encoding' && name !== 'trailer'));

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' | 'until-close' | 'done';

export interface FramedBytes {
  /** What to send on, in order. */
  output: Buffer[];
  /** The answer ended with these bytes (an answer delimited by the connection's end never does). */
  complete: boolean;
  /** The answer is delimited by the end of its connection: the client's must close after it too. */
  untilClose: boolean;
  /** The connection may carry another request (HTTP/1.1, no `Connection: close`, framed by length or chunks). */
  reusable: boolean;
}

export class AnswerFraming {
  private state: State = 'head';
  private pending: Buffer | null = null;
  private left = 0;
  private reusable = true;
  private untilClose = false;

  /**
   * @param method the request's method (a HEAD answer has no body whatever its headers say)
   * @param fromNode the answer comes from another node: its hop-by-hop headers are left out, and
   *        `Connection: close` is added when the client's connection has to end with it
   */
  constructor(
    private readonly method: string,
    private readonly fromNode: boolean,
  ) {}

  /** Takes the next bytes of the answer; throws on an answer that cannot be framed (the caller drops both connections). */
  push(chunk: Buffer): FramedBytes {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    const output: Buffer[] = [];
    let at = 0;
    while (at < data.length && this.state !== 'done') {
      if (this.state === 'until-close') {
        output.push(data.subarray(at));
        at = data.length;
      } else if (this.state === 'length' || this.state === 'chunk-data') {
        const taken = Math.min(this.left, data.length - at);
        output.push(data.subarray(at, at + taken));
        at += taken;
        this.left -= taken;
        if (this.left === 0) this.state = this.state === 'length' ? 'done' : 'chunk-end';
      } else if (this.state === 'chunk-end') {
        if (data.length - at < 2) break;
        if (data[at] !== 13 || data[at + 1] !== 10) throw new Error('a chunk does not end with CRLF');
        output.push(data.subarray(at, at + 2));
        at += 2;
        this.state = 'chunk-size';
      } else {
        const state = this.state;
        const isHead = state === 'head';
        const end = data.indexOf(isHead ? HEAD_END : LINE_END, at);
        if (end === -1) {
          if (data.length - at > (isHead ? MAX_HEAD_BYTES : MAX_LINE_BYTES)) throw new Error('an answer line is too long');
          break;
        }
        const next = end + (isHead ? 4 : 2);
        const rewritten = isHead ? this.head(data.toString('latin1', at, end)) : null;
        output.push(rewritten === null ? data.subarray(at, next) : Buffer.from(rewritten, 'latin1'));
        if (state === 'chunk-size') this.chunkSize(data.toString('latin1', at, end));
        else if (state === 'trailer' && end === at) this.state = 'done';
        at = next;
      }
    }
    if (this.state === 'done' && at < data.length) throw new Error('bytes after the answer');
    if (this.state !== 'done' && at < data.length) this.pending = data.subarray(at);
    return { output, complete: this.state === 'done', untilClose: this.untilClose, reusable: this.reusable };
  }

  private chunkSize(line: string): void {
    const size = CHUNK_SIZE.exec(line);
    if (!size) throw new Error('a chunk size is malformed');
    this.left = parseInt(size[1], 16);
    this.state = this.left === 0 ? 'trailer' : 'chunk-data';
  }

  /** Reads a head (status line and fields, without the empty line); the head to send on instead, or null to send it as it came. */
  private head(text: string): string | null {
    const statusEnd = lineEnd(text, 0);
    const status = STATUS_LINE.exec(text.slice(0, statusEnd));
    if (!status) throw new Error('the status line is malformed');
    const code = Number(status[2]);
    let contentLength: number | null = null;
    let chunked = false;
    let named: string[] | null = null;
    /** Each field line's start, end and lower-case name, to leave out the hop's (a node's answer only). */
    const fields: Array<[number, number, string]> = [];
    for (let at = statusEnd + 2; at < text.length;) {
      const end = lineEnd(text, at);
      const colon = text.indexOf(':', at);
      if (colon <= at || colon > end) throw new Error('a header line is malformed');
      const lower = text.slice(at, colon).toLowerCase();
      if (this.fromNode) fields.push([at, end, lower]);
      // Only the fields that frame the answer or name the hop's headers are read.
      const framing = lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection';
      const value = framing
        ? text
            .slice(colon + 1, end)
            .trim()
            .toLowerCase()
        : '';
      if (lower === 'content-length') {
        if (!/^\d{1,15}$/.test(value) || (contentLength !== null && contentLength !== Number(value))) throw new Error('the content length is malformed');
        contentLength = Number(value);
      } else if (lower === 'transfer-encoding') {
        chunked = value.split(',').at(-1)!.trim() === 'chunked';
        if (!chunked) throw new Error('a transfer coding other than chunked');
      } else if (lower === 'connection') {
        for (const token of value.split(',')) {
          if (token.trim() === 'close') this.reusable = false;
          (named ??= []).push(token.trim());
        }
      }
      at = end + 2;
    }
    if (status[1] === '0') this.reusable = false;
    if (code >= 100 && code < 200) {
      // An interim answer (103 Early Hints); the final one follows. 101 never comes: upgrades do not take the lane.
      if (code === 101) throw new Error('an unexpected 101');
      return null;
    }
    if (this.method === 'HEAD' || code === 204 || code === 304) this.state = 'done';
    else if (chunked) this.state = 'chunk-size';
    else if (contentLength !== null) {
      this.left = contentLength;
      this.state = contentLength === 0 ? 'done' : 'length';
    } else {
      this.state = 'until-close';
      this.untilClose = true;
      this.reusable = false;
    }
    if (!this.fromNode) return null;
    // The field lines kept go on as they came.
    let out = text.slice(0, statusEnd);
    for (const [start, end, lower] of fields) if (!NODE_HOP.has(lower) && !named?.includes(lower)) out += `\r\n${text.slice(start, end)}`;
    if (this.untilClose) out += '\r\nConnection: close';
    return `${out}\r\n\r\n`;
  }
}

/** Where the line starting at `at` ends (its CRLF, or the end of the head). */
function lineEnd(text: string, at: number): number {
  const end = text.indexOf('\r\n', at);
  return end === -1 ? text.length : end;
}
