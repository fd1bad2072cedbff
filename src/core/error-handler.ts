// One place that turns every failure into the spec's error bodies: `{"error": "...", "code": "...",
// "field"?: "..."}` everywhere, and `{"error": {"code", "message", "details"}}` on agent-delegation paths.
// Codes come from the catalogue (`error-codes.ts`). Internals never leak.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorBody } from './error-body.js';
import { genericCodeFor, type ErrorCode } from './error-codes.js';
import { HttpError } from './errors.js';

function usesCodedErrors(url: string): boolean {
  return url.startsWith('/v1/a2a') || url.startsWith('/.well-known/agent');
}

/** The body outside agent delegation: the message, its code, and the field at fault when there is one. */
export function errorBody(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
  return { error: message, code, ...(typeof details.field === 'string' ? { field: details.field } : {}) };
}

/** The error body the path answers with: coded on agent-delegation paths, the general one elsewhere. */
export function errorBodyFor(url: string, code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
  return usesCodedErrors(url) ? { error: { code, message, details } } : errorBody(code, message, details);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
  const body = errorBodyFor(request.url, code, message, details);
  // Serialized here rather than by the route's response schema, so no route's schema can drop the code.
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** Fastify's own errors for malformed requests, mapped to a status and a message that helps. */
function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

interface KnownFailure {
  status: number;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

function frameworkError(error: FastifyError, bodyLimitBytes: number | undefined): KnownFailure | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type', message: 'unsupported content-type: send application/json' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'payload_too_large', message: bodyLimitBytes ? `request body is too large: the limit is ${describeBytes(bodyLimitBytes)}` : 'request body is too large' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'invalid_json', message: 'request body is empty but content-type is application/json' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: 'invalid_json', message: 'request body is not valid JSON' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'invalid_request', message: 'content-length does not match the body' };
  }
  if (error.validation) {
    const field = (error as FastifyError & { field?: string }).field;
    return { status: 400, code: 'invalid_field', message: error.message, details: field ? { field } : {} };
  }
  if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) {
    return { status: 400, code: 'invalid_json', message: 'request body is not valid JSON' };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, code: genericCodeFor(status), message: error.message };
  return null;
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Returns the methods routes serve (`GET, HEAD, POST, …`), for the 405s answered outside Fastify. */
export function registerErrorHandling(app: FastifyInstance): () => string {
  app.addSchema(ErrorBody);

  // The methods some route answers; any other (TRACE, PROPFIND, …) is a 405 wherever it is sent.
  const served = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) served.add(method);
  });
  const allowed = () => [...served].sort((a, b) => (METHOD_ORDER.indexOf(a) + 1 || 99) - (METHOD_ORDER.indexOf(b) + 1 || 99)).join(', ');

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return sendError(request, reply, error.statusCode, error.code, error.message, error.details);
    }
    const known = frameworkError(error, request.routeOptions.bodyLimit);
    if (known) return sendError(request, reply, known.status, known.code, known.message, known.details);
    request.log.error({ err: error }, 'unexpected failure');
    return sendError(request, reply, 500, 'internal_error', 'internal server error');
  });

  app.setNotFoundHandler((request, reply) => {
    if (!served.has(request.method)) {
      reply.header('allow', allowed());
      return sendError(request, reply, 405, 'method_not_allowed', `${request.method.slice(0, 32)} is not a method this API serves (it serves ${allowed()})`);
    }
    return sendError(request, reply, 404, 'not_found', `no route for ${request.method} ${request.url.split('?')[0].slice(0, 200)}`);
  });
  return allowed;
}
