// A `fetch` for clients that take one (the A2A SDK) whose every request goes through the outbound
// guard: checked scheme and address, the connection pinned to the checked address, no redirects
// followed, responses capped in size. Responses stream, so server-sent events work through it.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { checkOutboundUrl, guardedLookup, type OutboundPolicy } from './outbound-guard.js';

const NO_BODY_STATUSES = new Set([101, 204, 205, 304]);
/** A remote party must not be able to fill the server's memory through one answer. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The response body as a web stream that errors once more than `maxBytes` arrived. */
function cappedBody(response: http.IncomingMessage, maxBytes: number): ReadableStream<Uint8Array> {
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) response.destroy(new Error(`the response is larger than ${maxBytes} bytes`));
  });
  return Readable.toWeb(response) as ReadableStream<Uint8Array>;
}

function requestBody(body: BodyInit | null | undefined): string | Buffer | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('guarded fetch sends string and byte bodies only');
}

export function guardedFetch(policy: OutboundPolicy, options: { userAgent?: string; maxResponseBytes?: number } = {}): typeof fetch {
  return async function fetchThroughGuard(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    if (input instanceof Request) {
      init = { method: input.method, headers: input.headers, body: input.body ? Buffer.from(await input.arrayBuffer()) : undefined, signal: input.signal, ...init };
      input = input.url;
    }
    const url = checkOutboundUrl(String(input), policy);
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const headers: Record<string, string> = { 'user-agent': options.userAgent ?? 'Paddock/1' };
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const body = requestBody(init.body);
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const request = client.request(url, { method: init.method ?? 'GET', headers, agent: false, lookup: guardedLookup(policy) });
      const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError'));
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      });
      request.on('response', (response) => {
        response.on('close', () => signal?.removeEventListener('abort', onAbort));
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
        }
        const status = response.statusCode ?? 502;
        const stream = NO_BODY_STATUSES.has(status) ? null : cappedBody(response, options.maxResponseBytes ?? MAX_RESPONSE_BYTES);
        if (!stream) response.resume();
        resolve(new Response(stream, { status, statusText: response.statusMessage, headers: responseHeaders }));
      });
      request.end(body);
    });
  };
}
