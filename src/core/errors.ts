// Typed errors thrown by services; `error-handler.ts` maps them to the spec's status codes and bodies.
// Each carries a code from the catalogue (`error-codes.ts`) of its own status.
import type { ErrorCodeFor } from './error-codes.js';

export class HttpError<S extends number = number> extends Error {
  constructor(
    readonly statusCode: S,
    message: string,
    /** Machine-readable code from the catalogue, sent in every error body. */
    readonly code: ErrorCodeFor<S>,
    /** `field` (a string) names the one field at fault and is sent beside the code. */
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class Invalid extends HttpError<400> {
  constructor(field: string, why: string, code: ErrorCodeFor<400> = 'invalid_field') {
    super(400, `${field} ${why}`, code, { field });
  }
}

export class BadRequest extends HttpError<400> {
  constructor(message: string, code: ErrorCodeFor<400> = 'invalid_request') {
    super(400, message, code);
  }
}

export class Unauthorized extends HttpError<401> {
  constructor(message = 'missing or invalid API key') {
    super(401, message, 'unauthorized');
  }
}

export class Forbidden extends HttpError<403> {
  constructor(message: string, code: ErrorCodeFor<403> = 'scope_denied') {
    super(403, message, code);
  }
}

export class NotFound extends HttpError<404> {
  constructor(what: string, code: ErrorCodeFor<404> = 'not_found') {
    super(404, `${what} not found`, code);
  }
}

export class Conflict extends HttpError<409> {
  constructor(message: string, code: ErrorCodeFor<409> = 'conflict') {
    super(409, message, code);
  }
}

export class TooManyRequests extends HttpError<429> {
  constructor(message: string, retryAfterSeconds: number, code: ErrorCodeFor<429> = 'rate_limited') {
    super(429, message, code, { retry_after_seconds: retryAfterSeconds }, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** A 403 for a limit: the plan's (`plan_limit`, the default) or a fixed quota (`quota_exceeded`). */
export class LimitExceeded extends HttpError<403> {
  constructor(message: string, code: ErrorCodeFor<403> = 'plan_limit') {
    super(403, message, code);
  }
}
