// Requests Node's HTTP server answers or drops on its own before Fastify routes them — a malformed head
// (Node's 'clientError'), CONNECT (Node's 'connect', closed unanswered without a listener), an HTTP/1.1
// request without Host or one with several — answered here in the API's JSON error shape, with a code
// from the catalogue. Each closes the connection: what follows a broken head cannot be trusted.
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBodyFor } from './error-handler.js';
import type { ErrorCode } from './error-codes.js';

interface Refusal {
  status: number;
  code: ErrorCode;
  message: string;
  headers?: Record<string, string>;
  /** The request target as far as it could be read: agent-delegation paths get their own error body. */
  target?: string;
}

/** A complete HTTP/1.1 response for a socket no ServerResponse is attached to. */
export function rawErrorResponse({ status, code, message, headers = {}, target = '' }: Refusal): string {
  const body = JSON.stringify(errorBodyFor(target, code, message));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`;
}

const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) [\x21-\x7e]+ HTTP\/1\.[01]\r?\n/;
/** The target of a request line too broken for Node's parser (it may hold any byte but space and line ends). */
const ROUGH_TARGET = /^\S+ ([^ \r\n]+)/;

type ClientError = Error & { code?: string; rawPacket?: Buffer };

function clientErrorRefusal(error: ClientError, allowedMethods: () => string): Refusal {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'headers_too_large', message: 'the request head is too large: the limit is 16 KiB' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'the request did not arrive in time' };
    case 'HPE_INVALID_METHOD': {
      // A well-formed request line with a method Node does not know (not garbage) is a method we do not serve.
      const method = REQUEST_LINE.exec(error.rawPacket?.toString('latin1') ?? '')?.[1];
      if (method)
        return { status: 405, code: 'method_not_allowed', message: `${method.slice(0, 32)} is not a method this API serves (it serves ${allowedMethods()})`, headers: { Allow: allowedMethods() } };
    }
    // falls through
    default:
      return { status: 400, code: 'malformed_request', message: `the HTTP request is malformed (${(error.code ?? 'parse error').toLowerCase().replace(/^hpe_/, '')})` };
  }
}

/** What Node's parser rejects, answered as JSON before the socket closes (Fastify's own answer is not the API's shape). */
function answerClientError(error: ClientError, socket: Duplex, allowedMethods: () => string): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Not in the middle of an answer to an earlier request on this connection: bytes would be mixed into it.
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  const target = ROUGH_TARGET.exec(error.rawPacket?.toString('latin1') ?? '')?.[1];
  if (socket.writable && !answering?.headersSent) socket.write(rawErrorResponse({ ...clientErrorRefusal(error, allowedMethods), target }));
  socket.destroy();
}

/**
 * Node keeps the first of several Host headers and drops the rest; routing on one while something
 * behind reads another would send a request where it was not addressed (RFC 9112 asks for a 400).
 */
function hostRefusal(request: IncomingMessage): Refusal | null {
  let hosts = 0;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') hosts++;
  if (hosts > 1) return { status: 400, code: 'malformed_request', message: 'the request has more than one Host header' };
  if (hosts === 0 && request.httpVersion === '1.1') return { status: 400, code: 'malformed_request', message: 'the request has no Host header (HTTP/1.1 requires one)' };
  return null;
}

const SHUTTING_DOWN: Refusal = { status: 503, code: 'shutting_down', message: 'the server is shutting down: retry shortly' };

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;
type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * Puts the Host check in front of every request and upgrade listener the server has, and answers
 * CONNECT and parse errors. Call once every other listener is in place (after the preview front door's
 * takeover in Fastify's onReady); the server must be created with `requireHostHeader: false`, or Node
 * answers a missing Host itself. `allowedMethods` lists the methods routes serve (`GET, HEAD, …`);
 * once `closing()`, requests are answered 503 (keep-alive connections still send some while draining).
 */
export function guardServer(server: Server, allowedMethods: () => string, closing: () => boolean): void {
  server.removeAllListeners('clientError');
  server.on('clientError', (error: ClientError, socket: Duplex) => answerClientError(error, socket, allowedMethods));
  const onRequest = server.listeners('request') as RequestListener[];
  const onUpgrade = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    // Fastify answers requests that arrive while it drains with a 503 of its own shape.
    const refusal = closing() ? SHUTTING_DOWN : hostRefusal(request);
    if (!refusal) for (const listener of onRequest) listener.call(server, request, response);
    else {
      response.writeHead(refusal.status, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
      response.end(JSON.stringify(errorBodyFor(request.url ?? '', refusal.code, refusal.message)));
    }
  });
  // Without an 'upgrade' listener Node serves upgrade requests as plain requests (above).
  if (onUpgrade.length) {
    server.removeAllListeners('upgrade');
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const refusal = hostRefusal(request);
      if (!refusal) for (const listener of onUpgrade) listener.call(server, request, socket, head);
      else socket.end(rawErrorResponse({ ...refusal, target: request.url }));
    });
  }
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.end(rawErrorResponse({ status: 405, code: 'method_not_allowed', message: `CONNECT is not a method this API serves (it serves ${allowedMethods()})`, headers: { Allow: allowedMethods() } }));
  });
}
