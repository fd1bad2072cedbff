// Errors the SDK throws: one class per kind of failure, each carrying the server's stable `code`.
// Paddock answers `{"error": "message", "code": "…", "field": "body.x"}`; agent-delegation routes answer
// `{"error": {"code", "message", "details"}}`. Both become a PaddockError.

export interface ErrorFields {
  status: number;
  code: string;
  message: string;
  field?: string;
  details?: unknown;
  /** Seconds the server asked to wait (429), when it said. */
  retryAfterMs?: number;
  method?: string;
  path?: string;
}

export class PaddockError extends Error {
  readonly status: number;
  /** The server's machine-readable code (`sandbox_not_found`, `rate_limited`, …); see the API's Error schema. */
  readonly code: string;
  /** The request field at fault, when the server named one (`body.template`). */
  readonly field?: string;
  readonly details?: unknown;
  readonly method?: string;
  readonly path?: string;

  constructor(fields: ErrorFields) {
    super(fields.message);
    this.name = new.target.name;
    this.status = fields.status;
    this.code = fields.code;
    this.field = fields.field;
    this.details = fields.details;
    this.method = fields.method;
    this.path = fields.path;
  }
}

export class BadRequestError extends PaddockError {}
export class AuthenticationError extends PaddockError {}
export class PermissionError extends PaddockError {}
export class NotFoundError extends PaddockError {}
export class ConflictError extends PaddockError {}
export class PayloadTooLargeError extends PaddockError {}
export class RateLimitError extends PaddockError {
  /** How long the server asked to wait before retrying. */
  readonly retryAfterMs?: number;
  constructor(fields: ErrorFields) {
    super(fields);
    this.retryAfterMs = fields.retryAfterMs;
  }
}
export class ServerError extends PaddockError {}

/** The server could not be reached, or the connection broke before an answer. */
export class ConnectionError extends PaddockError {
  constructor(message: string, options: { cause?: unknown; method?: string; path?: string } = {}) {
    super({ status: 0, code: 'connection_error', message, method: options.method, path: options.path });
    this.cause = options.cause;
  }
}

/** The SDK gave up waiting (a `timeoutMs` option, or `waitForRun`). */
export class TimeoutError extends PaddockError {
  constructor(message: string) {
    super({ status: 0, code: 'timeout', message });
  }
}

const CLASS_BY_STATUS: Record<number, new (fields: ErrorFields) => PaddockError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  429: RateLimitError,
};

/** The error for a non-2xx answer, from its status, headers and body text (JSON or not). */
export function errorFromResponse(status: number, headers: Headers, text: string, request: { method: string; path: string }): PaddockError {
  let code = `http_${status}`;
  let message = text.trim().slice(0, 500) || `HTTP ${status}`;
  let field: string | undefined;
  let details: unknown;
  try {
    const body = JSON.parse(text) as { error?: unknown; code?: unknown; field?: unknown };
    if (typeof body.error === 'string') {
      message = body.error;
      if (typeof body.code === 'string') code = body.code;
      if (typeof body.field === 'string') field = body.field;
    } else if (body.error && typeof body.error === 'object') {
      const nested = body.error as { code?: unknown; message?: unknown; details?: unknown };
      if (typeof nested.code === 'string') code = nested.code;
      if (typeof nested.message === 'string') message = nested.message;
      details = nested.details;
    }
  } catch {
    // Not JSON (a proxy's page): the text is the message.
  }
  const retryAfterMs = retryDelayFromHeaders(headers);
  const Kind = CLASS_BY_STATUS[status] ?? (status >= 500 ? ServerError : PaddockError);
  return new Kind({ status, code, message, field, details, retryAfterMs, method: request.method, path: request.path });
}

/** Retry-After (seconds or an HTTP date), else X-RateLimit-Reset (epoch seconds); undefined when neither says. */
export function retryDelayFromHeaders(headers: Headers, now = Date.now()): number | undefined {
  const retryAfter = headers.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (headers.get('x-ratelimit-reset') && Number.isFinite(reset)) return Math.max(0, reset * 1000 - now);
  return undefined;
}
