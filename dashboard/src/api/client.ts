// The one way pages talk to Paddock: same-origin fetch with the session cookie, the CSRF header on
// writes, JSON in and out, errors as ApiError carrying the API's own message and code, and 429s waited
// out with the server's Retry-After / X-RateLimit-Reset before one retry.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly field?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
let onUnauthorized: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when a request answers 401: the session ended (expired, signed out elsewhere). */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

const SAFE = new Set(['GET', 'HEAD']);

/** Seconds to wait after a 429, from the answer's headers (Retry-After first, then the window's reset). */
export function retryAfterSeconds(response: Response): number {
  const retryAfter = Number(response.headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return retryAfter;
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  if (Number.isFinite(reset) && reset > 0) {
    const seconds = reset > 1e9 ? reset - Date.now() / 1000 : reset;
    if (seconds > 0) return Math.min(seconds, 60);
  }
  return 5;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Raw body (file uploads): sent as is with its own content type. */
  raw?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Return the Response instead of parsing JSON (downloads, streams). */
  asResponse?: boolean;
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (!SAFE.has(method) && csrfToken) headers['x-paddock-csrf'] = csrfToken;
  let body: BodyInit | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    headers['content-type'] = options.contentType ?? 'application/octet-stream';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  return fetch(path, { method, headers, body, credentials: 'same-origin', signal: options.signal });
}

async function errorFrom(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`;
  let code = 'http_error';
  let field: string | undefined;
  try {
    const parsed = (await response.json()) as { error?: unknown; code?: string; field?: string };
    if (typeof parsed.error === 'string') message = parsed.error;
    else if (parsed.error && typeof parsed.error === 'object' && 'message' in parsed.error) message = String((parsed.error as { message: unknown }).message);
    if (parsed.code) code = parsed.code;
    field = parsed.field;
  } catch {
    /* not JSON: keep the status line */
  }
  return new ApiError(response.status, message, code, field, response.status === 429 ? retryAfterSeconds(response) : undefined);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('aborted', 'AbortError'));
    });
  });
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  let response = await send(path, options);
  if (response.status === 429 && SAFE.has(options.method ?? 'GET')) {
    await sleep(retryAfterSeconds(response) * 1000, options.signal);
    response = await send(path, options);
  }
  if (response.status === 401 && onUnauthorized && !path.startsWith('/v1/dashboard/session')) onUnauthorized();
  if (!response.ok) throw await errorFrom(response);
  if (options.asResponse) return response as unknown as T;
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => request<T>(path, { signal }),
  post: <T>(path: string, body?: unknown) => request<T>(path, { method: 'POST', body: body ?? {} }),
  put: <T>(path: string, body?: unknown) => request<T>(path, { method: 'PUT', body }),
  patch: <T>(path: string, body?: unknown) => request<T>(path, { method: 'PATCH', body }),
  delete: <T = void>(path: string) => request<T>(path, { method: 'DELETE' }),
};

/** Builds a query string from the defined values. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
