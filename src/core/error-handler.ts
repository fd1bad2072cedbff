// One place that turns every failure into the spec's error bodies: `{"error": "..."}` everywhere, and
// `{"error": {"code", "message", "details"}}` on agent-delegation paths. Internals never leak.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

function usesCodedErrors(url: string): boolean {
  return url.startsWith('/v1/a2a') || url.startsWith('/.well-known/agent');
}

export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string, details: Record<string, unknown> = {}) {
  const body = usesCodedErrors(request.url) ? { error: { code, message, details } } : { error: message };
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Fastify's own errors for malformed requests, mapped to a status and a message that helps. */
function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

function frameworkError(error: FastifyError, bodyLimitBytes: number | undefined): { status: number; code: string; message: string } | null {
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
  if (error.validation) return { status: 400, code: 'invalid_input', message: error.message };
  if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) {
    return { status: 400, code: 'invalid_json', message: 'request body is not valid JSON' };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, code: 'invalid_request', message: error.message };
  return null;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return sendError(request, reply, error.statusCode, error.code, error.message, error.details);
    }
    const known = frameworkError(error, request.routeOptions.bodyLimit);
    if (known) return sendError(request, reply, known.status, known.code, known.message);
    request.log.error({ err: error }, 'unexpected failure');
    return sendError(request, reply, 500, 'internal_error', 'internal server error');
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, 404, 'not_found', `no route for ${request.method} ${request.url.split('?')[0].slice(0, 200)}`),
  );
}
