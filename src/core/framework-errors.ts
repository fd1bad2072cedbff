// Requests refused before they reach a route: by the router (a path that does not decode, a path
// segment over the limit) or by Node's HTTP parser (raw bytes in the request target, bad header
// characters, headers over 16 KiB). Fastify answers these with its own body (`{"error": "Bad Request",
// "message": "Client Error", "statusCode": 400}`), which names nothing; these answer the spec's
// `{"error": "<message>"}` like every other refusal.
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './error-handler.js';

/** Longest path parameter the router passes on (see the router options in app.ts). */
export const MAX_PARAM_LENGTH = 400;

export function answerRoutingError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return sendError(request, reply, 400, 'invalid_path', 'the path is not valid: a percent-encoded segment does not decode to UTF-8 text');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendError(request, reply, 414, 'uri_too_long', `a path segment is longer than ${MAX_PARAM_LENGTH} characters`);
    default:
      return sendError(request, reply, 400, 'invalid_request', 'the request could not be routed');
  }
}

function parserRefusal(error: NodeJS.ErrnoException): { status: number; reason: string; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: 'the request was not received in time' };
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, reason: 'Request Header Fields Too Large', message: 'the request headers are larger than 16 KiB' };
  // llhttp's reasons ("Invalid character in URL", "Invalid header value char") are fixed ASCII texts.
  const detail = String((error as { reason?: unknown }).reason ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, 120);
  return { status: 400, reason: 'Bad Request', message: `malformed HTTP request${detail ? `: ${detail}` : ''} (the request target must be ASCII, percent-encode other bytes)` };
}

/** Fastify's `clientErrorHandler`: the socket carries no request object, so the answer is written raw. */
export function answerParserError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, reason, message } = parserRefusal(error);
  const body = JSON.stringify({ error: message });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
