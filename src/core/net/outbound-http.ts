// POSTs a body to a user-supplied URL through the outbound guard: checked scheme and address, the
// connection pinned to the checked address, no redirects followed, a hard timeout, and only the start
// of the response kept.
import http from 'node:http';
import https from 'node:https';
import { checkOutboundUrl, guardedLookup, OutboundRefused, type OutboundPolicy } from './outbound-guard.js';

const RESPONSE_EXCERPT_BYTES = 1024;

export interface OutboundResponse {
  statusCode: number;
  /** The first KiB of the response body, as text. */
  bodyExcerpt: string;
}

export interface PostOptions {
  policy: OutboundPolicy;
  timeoutMs: number;
  headers?: Record<string, string>;
}

export function postOutbound(urlText: string, body: string, options: PostOptions): Promise<OutboundResponse> {
  const url = checkOutboundUrl(urlText, options.policy);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: 'POST',
      agent: false,
      lookup: guardedLookup(options.policy),
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Paddock-Webhooks/1',
        ...options.headers,
      },
      timeout: options.timeoutMs,
    });
    const deadline = setTimeout(() => request.destroy(new Error(`no response within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`no response within ${options.timeoutMs} ms`)));
    request.on('error', (error) => {
      clearTimeout(deadline);
      reject(error instanceof OutboundRefused ? error : new Error(describeNetworkError(error)));
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const finish = () => {
        clearTimeout(deadline);
        resolve({ statusCode: response.statusCode ?? 0, bodyExcerpt: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8') });
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        kept += chunk.length;
        // Enough to show the user; the rest of a large answer is not read.
        if (kept >= RESPONSE_EXCERPT_BYTES) {
          finish();
          response.destroy();
        }
      });
      response.on('error', () => {});
      response.on('end', finish);
    });
    request.end(body);
  });
}

function describeNetworkError(error: Error & { code?: string }): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${error.code})`;
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return error.code ? `${error.message} (${error.code})` : error.message;
  }
}
