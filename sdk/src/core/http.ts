// The one way the SDK talks to Paddock: JSON requests with the API key, typed errors, and retries
// (429 always, waiting what the server asks; network errors and 502/503/504 only when repeating the call
// cannot do it twice: reads, deletes, and writes carrying an Idempotency-Key, which every POST gets).
import { ConnectionError, errorFromResponse, PaddockError, RateLimitError, retryDelayFromHeaders } from './errors.js';

export const SDK_VERSION = '0.1.0';
export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface ClientOptions {
  /** `svc_sk_…`; default `PADDOCK_API_KEY`. */
  apiKey?: string;
  /** The server's base URL; default `PADDOCK_URL`, else http://127.0.0.1:8080 (`paddock serve`'s default). */
  url?: string;
  /** Retries of one call (429, and network errors / 502-504 on calls safe to repeat); default 3. */
  maxRetries?: number;
  /** Per attempt, for calls that are not streams; default 60 000. */
  timeoutMs?: number;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  /** JSON-encoded. */
  body?: unknown;
  /** Sent as-is (uploads); `contentType` says what it is. */
  rawBody?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
  /** For POST/PATCH: false when the route must not get an Idempotency-Key (then network errors are not retried). */
  idempotent?: boolean;
  /** Use this Idempotency-Key instead of a random one. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Per attempt; 0 for none. Streams default to none. */
  timeoutMs?: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'PUT', 'OPTIONS']);
const RETRIED_STATUSES = new Set([502, 503, 504]);
const MAX_WAIT_MS = 60_000;

export class Http {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ClientOptions = {}) {
    const env = typeof process === 'undefined' ? {} : process.env;
    this.baseUrl = (options.url ?? env.PADDOCK_URL ?? DEFAULT_URL).replace(/\/+$/, '');
    this.apiKey = options.apiKey ?? env.PADDOCK_API_KEY ?? undefined;
    this.maxRetries = options.maxRetries ?? 3;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.headers = options.headers ?? {};
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** A JSON call; resolves to the parsed body (undefined for 204). */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options, options.timeoutMs ?? this.timeoutMs);
    const text = await response.text();
    if (!text) return undefined as T;
    return (response.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as T) : (text as T);
  }

  /** A call whose body the caller reads (NDJSON, SSE, downloads): the response once its status is 2xx. */
  stream(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    return this.send(method, path, options, options.timeoutMs ?? 0);
  }

  url(path: string, query?: Record<string, QueryValue>): string {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
    }
    return url.toString();
  }

  private async send(method: string, path: string, options: RequestOptions, timeoutMs: number): Promise<Response> {
    method = method.toUpperCase();
    const headers: Record<string, string> = { 'user-agent': `paddock-sdk/${SDK_VERSION}`, ...this.headers, ...options.headers };
    if (this.apiKey && !('authorization' in headers)) headers.authorization = `Bearer ${this.apiKey}`;
    let body: BodyInit | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    } else if (options.rawBody !== undefined) {
      headers['content-type'] = options.contentType ?? 'application/octet-stream';
    }
    const keyed = (method === 'POST' || method === 'PATCH') && options.idempotent !== false && options.rawBody === undefined;
    if (keyed) headers['idempotency-key'] = options.idempotencyKey ?? crypto.randomUUID();
    const repeatable = SAFE_METHODS.has(method) || keyed;
    const url = this.url(path, options.query);

    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.maxRetries;
      let response: Response;
      try {
        response = await this.fetchImpl(url, { method, headers, body, signal: attemptSignal(options.signal, timeoutMs) });
      } catch (cause) {
        if (options.signal?.aborted) throw cause;
        const error = new ConnectionError(`${method} ${path}: ${describeCause(cause)}`, { cause, method, path });
        if (!repeatable || last) throw error;
        await sleep(backoffMs(attempt), options.signal);
        continue;
      }
      if (response.ok) return response;
      const error = errorFromResponse(response.status, response.headers, await response.text().catch(() => ''), { method, path });
      if (last || !shouldRetry(error, repeatable)) throw error;
      const asked = error instanceof RateLimitError ? (error.retryAfterMs ?? retryDelayFromHeaders(response.headers)) : undefined;
      await sleep(Math.min(MAX_WAIT_MS, asked ?? backoffMs(attempt)), options.signal);
    }
  }
}

function shouldRetry(error: PaddockError, repeatable: boolean): boolean {
  if (error.status === 429) return true;
  return repeatable && RETRIED_STATUSES.has(error.status);
}

/** 250 ms doubling to 8 s, with jitter so many clients do not retry in step. */
export function backoffMs(attempt: number): number {
  return Math.min(8000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);
}

function attemptSignal(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal | undefined {
  const signals = [signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => Boolean(s));
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

function describeCause(cause: unknown): string {
  const error = cause as { message?: string; cause?: { code?: string; message?: string } };
  return error?.cause?.code ?? error?.cause?.message ?? error?.message ?? String(cause);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
