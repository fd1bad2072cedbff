// Requests the router refuses before they reach a route (a path that does not decode, a path segment
// over the limit). Fastify answers these with its own body, which names nothing; these answer with the
// error body and a code like every other refusal. Node's own refusals (malformed heads) are answered in
// server-refusals.ts.
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
