// The head of one HTTP/1.1 request read straight from a client socket, for the relay of admitted preview
// connections: parsed strictly (anything unusual is left to Node's own HTTP server), and rewritten on its
// way to the sandbox the way the per-request proxy rewrites headers (see headers.ts).
import { isPaddockCredential } from './headers.js';
import { COOKIE_NAME, withoutPreviewCookie } from './protection.js';

/** Node's default limit on the size of a request head. */
export const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TARGET = /^[\x21-\x7e\x80-\xff]+$/;
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;

export interface RequestHead {
  method: string;
  url: string;
  /** The few headers the proxy decides by, lower-case names (the shape of IncomingMessage.headers). */
  headers: { host?: string; cookie?: string; authorization?: string };
  /** Body framing: 'chunked', a byte count, or 0 for none. */
  body: 'chunked' | number;
  /** Upgrade, CONNECT or a login form: requests the relay does not carry. */
  needsNode: boolean;
  /** Header lines as sent, without the request line and the empty line. */
  lines: string[];
  requestLine: string;
  forwardedFor: string | undefined;
  /** A header the sandbox must not see is present, so the head is rebuilt rather than copied. */
  mustRebuild: boolean;
}

/** Offset just past the empty line that ends the head starting at `start`, or -1 if it is not all here. */
export function headEnd(buffer: Buffer, start: number): number {
  const at = buffer.indexOf(HEAD_END, start);
  return at === -1 ? -1 : at + HEAD_END.length;
}

/**
 * The head in `buffer[start, end)`, or null when it is not a plain, unambiguous HTTP/1.x request:
 * bare LF, folded lines, two Hosts, Content-Length with Transfer-Encoding, a coding other than chunked.
 * Those go to Node's parser, which answers them as it answers every other malformed request.
 */
export function parseRequestHead(buffer: Buffer, start: number, end: number): RequestHead | null {
  const lines = buffer.toString('latin1', start, end - 4).split('\r\n');
  const requestLine = lines.shift()!;
  const parts = requestLine.split(' ');
  if (parts.length !== 3 || !TOKEN.test(parts[0]) || !TARGET.test(parts[1]) || (parts[2] !== 'HTTP/1.1' && parts[2] !== 'HTTP/1.0')) return null;
  const head: RequestHead = { method: parts[0], url: parts[1], headers: {}, body: 0, needsNode: parts[0] === 'CONNECT', lines, requestLine, forwardedFor: undefined, mustRebuild: false };
  let contentLength: string | undefined;
  let transferEncoding: string | undefined;
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) return null;
    switch (name.toLowerCase()) {
      case 'host':
        if (head.headers.host !== undefined) return null;
        head.headers.host = value;
        break;
      case 'content-length':
        if (contentLength !== undefined || !/^\d{1,15}$/.test(value)) return null;
        contentLength = value;
        break;
      case 'transfer-encoding':
        if (transferEncoding !== undefined) return null;
        transferEncoding = value.toLowerCase();
        break;
      case 'upgrade':
        head.needsNode = true;
        break;
      case 'authorization':
        head.headers.authorization = value;
        break;
      case 'cookie':
        head.headers.cookie = head.headers.cookie === undefined ? value : `${head.headers.cookie}; ${value}`;
        if (value.includes(COOKIE_NAME)) head.mustRebuild = true;
        break;
      case 'x-forwarded-for':
        head.forwardedFor = head.forwardedFor === undefined ? value : `${head.forwardedFor}, ${value}`;
        head.mustRebuild = true;
        break;
      case 'x-forwarded-proto':
      case 'x-forwarded-host':
      case 'proxy-authorization':
      case 'proxy-connection':
        head.mustRebuild = true;
        break;
    }
  }
  if (head.headers.host === undefined && parts[2] === 'HTTP/1.1') return null;
  if (transferEncoding !== undefined) {
    if (contentLength !== undefined || transferEncoding !== 'chunked') return null;
    head.body = 'chunked';
  } else if (contentLength !== undefined) {
    head.body = Number(contentLength);
  }
  return head;
}

export interface ForwardOptions {
  clientAddress: string;
  scheme: string;
  portIsProtected: boolean;
}

/**
 * What the sandbox receives for `buffer[start, end)`: the same head with X-Forwarded-For/-Proto/-Host
 * set and Paddock's credentials and cookie removed. Connection, Transfer-Encoding and the other
 * hop-by-hop headers stay: client and sandbox share one connection end to end, so they still hold.
 * Returns the bytes to copy (up to the last header line) and the text to append.
 */
export function forwardedHead(head: RequestHead, buffer: Buffer, start: number, end: number, options: ForwardOptions): { copy: Buffer | null; append: string } {
  const forwardedFor = head.forwardedFor ? `${head.forwardedFor}, ${options.clientAddress}` : options.clientAddress;
  const added = `X-Forwarded-For: ${forwardedFor}\r\nX-Forwarded-Proto: ${options.scheme}\r\nX-Forwarded-Host: ${head.headers.host ?? ''}\r\n\r\n`;
  const authorization = head.headers.authorization;
  const stripAuthorization = authorization !== undefined && isPaddockCredential(authorization, options.portIsProtected);
  if (!head.mustRebuild && !stripAuthorization) return { copy: buffer.subarray(start, end - 2), append: added };

  const kept = [head.requestLine];
  for (const line of head.lines) {
    const name = line.slice(0, line.indexOf(':')).toLowerCase();
    if (name === 'x-forwarded-for' || name === 'x-forwarded-proto' || name === 'x-forwarded-host' || name === 'proxy-authorization' || name === 'proxy-connection') continue;
    if (name === 'authorization' && stripAuthorization) continue;
    if (name === 'cookie') {
      const cookie = withoutPreviewCookie(line.slice(line.indexOf(':') + 1).trim());
      if (cookie !== undefined) kept.push(`Cookie: ${cookie}`);
      continue;
    }
    kept.push(line);
  }
  return { copy: null, append: `${kept.join('\r\n')}\r\n${added}` };
}
