// What crosses the proxy: hop-by-hop headers stay on their hop, Paddock's credentials never reach the
// sandbox, and the sandbox learns the original client, scheme and host through X-Forwarded-*.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { withoutPreviewCookie } from './protection.js';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

function connectionTokens(value: string | string[] | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Whether an Authorization header carries a Paddock credential: an API key or dashboard token, or
 * (on a protected port) the preview password. */
export function isPaddockCredential(authorization: string, portIsProtected: boolean): boolean {
  return /^Bearer\s+svc_/i.test(authorization) || (portIsProtected && /^Basic\s/i.test(authorization));
}

export function requestHeaders(request: IncomingMessage, options: { scheme: string; portIsProtected: boolean; upgrade: boolean }): OutgoingHttpHeaders {
  const source: IncomingHttpHeaders = request.headers;
  const named = connectionTokens(source.connection);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    headers[name] = value;
  }
  if (typeof source.authorization === 'string' && isPaddockCredential(source.authorization, options.portIsProtected)) delete headers.authorization;
  const cookie = withoutPreviewCookie(source.cookie);
  if (cookie === undefined) delete headers.cookie;
  else headers.cookie = cookie;
  if (options.upgrade) {
    headers.connection = 'Upgrade';
    if (source.upgrade) headers.upgrade = source.upgrade;
  }
  const client = request.socket.remoteAddress ?? '';
  const forwardedFor = source['x-forwarded-for'];
  headers['x-forwarded-for'] = forwardedFor ? `${forwardedFor}, ${client}` : client;
  headers['x-forwarded-proto'] = options.scheme;
  headers['x-forwarded-host'] = source.host ?? '';
  return headers;
}

/** Response headers from the sandbox as a flat [name, value, …] list (keeps repeated Set-Cookie), minus hop-by-hop ones. */
export function responseHeaders(rawHeaders: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === 'connection') for (const token of connectionTokens(rawHeaders[i + 1])) named.add(token);
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    kept.push(rawHeaders[i], rawHeaders[i + 1]);
  }
  return kept;
}
