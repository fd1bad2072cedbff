// A request head read straight from a client's socket, before Node's HTTP server sees it: by the preview
// front door (does the connection go to the relay?) and by an api node's cluster fast lane (is this a
// request to pass on to a worker as it is?). Parsed strictly, with the preview relay's own rules
// (relay/framing.c), so anything unusual is left to Node's HTTP server.

/** Node's default limit on the size of a request head. */
export const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TARGET = /^[\x21-\x7e\x80-\xff]+$/;
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;
/** Only spaces and tabs around a value, as the relay trims them. */
const OPTIONAL_WHITESPACE = /^[ \t]+|[ \t]+$/g;

export interface RequestHead {
  method: string;
  url: string;
  version: 'HTTP/1.1' | 'HTTP/1.0';
  /** The few headers the proxy decides by, lower-case names (the shape of IncomingMessage.headers). */
  headers: { host?: string; cookie?: string; authorization?: string };
  /** Body framing: 'chunked', a byte count, or 0 for none. */
  body: 'chunked' | number;
  /** Upgrade, CONNECT or a login form: requests the relay does not carry. */
  needsNode: boolean;
  /** Every header as sent, `[name, value, name, value, …]` (the shape of IncomingMessage.rawHeaders). */
  fields: string[];
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
  const head: RequestHead = { method: parts[0], url: parts[1], version: parts[2], headers: {}, body: 0, needsNode: parts[0] === 'CONNECT', fields: [] };
  let contentLength: string | undefined;
  let transferEncoding: string | undefined;
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(OPTIONAL_WHITESPACE, '');
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) return null;
    head.fields.push(name, value);
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
        break;
    }
  }
  if (head.headers.host === undefined && head.version === 'HTTP/1.1') return null;
  if (transferEncoding !== undefined) {
    if (contentLength !== undefined || transferEncoding !== 'chunked') return null;
    head.body = 'chunked';
  } else if (contentLength !== undefined) {
    head.body = Number(contentLength);
  }
  return head;
}
