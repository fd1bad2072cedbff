// What the preview answers instead of proxying — an HTML page with a status — written to a Node
// response, or to a raw socket (an upgrade, a relayed connection) as a complete HTTP/1.1 answer.
import http, { type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PreviewTarget } from './host.js';
import { errorPage } from './password-page.js';

/** What to answer instead of proxying. */
export interface Refusal {
  status: number;
  html: string;
  headers?: Record<string, string>;
}

export const UNAVAILABLE: Refusal = { status: 500, html: errorPage('Preview unavailable', 'Paddock could not serve this preview. Try again.') };

export function refuse(status: number, title: string, message: string, headers?: Record<string, string>): { kind: 'refuse'; refusal: Refusal } {
  return { kind: 'refuse', refusal: { status, html: errorPage(title, message), headers } };
}

export function nothingListening(target: PreviewTarget): Refusal {
  return { status: 502, html: errorPage('Nothing is listening', `No server answers on port ${target.port} of sandbox ${target.sandboxId}. Start one listening on 0.0.0.0:${target.port} and reload.`) };
}

export function sendPage(response: ServerResponse, refusal: Refusal): void {
  const body = Buffer.from(refusal.html);
  response.writeHead(refusal.status, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.length), 'cache-control': 'no-store', ...refusal.headers });
  response.end(body);
}

export function writeRawPage(socket: Duplex, refusal: Refusal): void {
  const body = Buffer.from(refusal.html);
  const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(body.length), Connection: 'close', ...refusal.headers };
  const head = [`HTTP/1.1 ${refusal.status} ${http.STATUS_CODES[refusal.status] ?? ''}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');
  if (socket.writable) socket.end(Buffer.concat([Buffer.from(head + '\r\n\r\n'), body]));
  else socket.destroy();
}
