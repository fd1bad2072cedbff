// Typed errors thrown by services; `errorHandler.ts` maps them to the spec's status codes and bodies.

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** Machine-readable code; only agent-delegation bodies carry it, but it is kept for logs everywhere. */
    readonly code: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class Invalid extends HttpError {
  constructor(field: string, why: string, code = 'invalid_input') {
    super(400, `${field} ${why}`, code, { field });
  }
}

export class BadRequest extends HttpError {
  constructor(message: string, code = 'invalid_request') {
    super(400, message, code);
  }
}

export class Unauthorized extends HttpError {
  constructor(message = 'missing or invalid API key') {
    super(401, message, 'unauthorized');
  }
}

export class Forbidden extends HttpError {
  constructor(message: string, code = 'forbidden') {
    super(403, message, code);
  }
}

export class NotFound extends HttpError {
  constructor(what: string, code = 'not_found') {
    super(404, `${what} not found`, code);
  }
}

export class Conflict extends HttpError {
  constructor(message: string, code = 'conflict') {
    super(409, message, code);
  }
}

export class TooManyRequests extends HttpError {
  constructor(message: string, retryAfterSeconds: number, code = 'rate_limited') {
    super(429, message, code, { retry_after_seconds: retryAfterSeconds }, { 'retry-after': String(retryAfterSeconds) });
  }
}

export class LimitExceeded extends HttpError {
  constructor(message: string, code = 'limit_exceeded') {
    super(403, message, code);
  }
}
