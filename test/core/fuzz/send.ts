// Sends fuzzed requests byte for byte (node:http, so paths may carry raw bytes and broken encodings that
// fetch would normalize) and judges each answer: never a 5xx, never a dropped connection or a hang,
// and every 4xx a JSON error body.
import http from 'node:http';
import type { FuzzRequest } from './requests.js';

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

const TIMEOUT_MS = 30_000;

export function send(baseUrl: string, agent: http.Agent, request: FuzzRequest): Promise<Answer> {
  const url = new URL(baseUrl);
  // Node frames a GET or DELETE body with neither content-length nor chunking unless told: the server
  // would read the body as a second request.
  const headers = request.body === null ? request.headers : { ...request.headers, 'content-length': String(request.body.length) };
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: url.hostname, port: url.port, method: request.method, path: request.target, headers, agent, timeout: TIMEOUT_MS }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    outgoing.on('error', reject);
    outgoing.end(request.body ?? undefined);
  });
}

/** Agent-delegation paths carry the spec's `{error: {code, message, details}}`; every other path `{error: string}`. */
function codedErrors(target: string): boolean {
  return target.startsWith('/v1/a2a') || target.startsWith('/.well-known/agent');
}

/** The A2A protocol endpoint (`/a2a/…`) answers its JSON-RPC or google.rpc.Status error (`error.message`) once routed, the server's `{error: string}` for a request refused before routing. */
function errorBodyOk(target: string, body: any): boolean {
  if (target.startsWith('/a2a/')) return typeof body?.error === 'string' || typeof body?.error?.message === 'string';
  return codedErrors(target) ? typeof body?.error?.message === 'string' : typeof body?.error === 'string';
}

/** A2A's HTTP+JSON binding answers with its own JSON media type. */
function jsonContentType(target: string, contentType: string): boolean {
  return contentType.startsWith('application/json') || (target.startsWith('/a2a/') && contentType.startsWith('application/a2a+json'));
}

/** What is wrong with an answer, or null when it is what a malformed request deserves. */
export function problemWith(request: FuzzRequest, answer: Answer): string | null {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (answer.status < 400) return null;
  if (!jsonContentType(request.target, answer.contentType)) return `answered ${answer.status} with content-type "${answer.contentType}": ${answer.text.slice(0, 200)}`;
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 200)}`;
  }
  const ok = errorBodyOk(request.target, body);
  if (!ok) return `answered ${answer.status} without the error body: ${answer.text.slice(0, 200)}`;
  // Fastify's own refusals ({error: "Bad Request", code: "FST_…", message, statusCode}) pass the check
  // above without naming the problem; they must go through the app's error mapping like the rest.
  if ('statusCode' in body || /^FST_/.test(String(body.code ?? ''))) return `answered ${answer.status} with Fastify's own error body: ${answer.text.slice(0, 200)}`;
  return null;
}
