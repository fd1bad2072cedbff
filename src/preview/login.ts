// The password form's POST on a protected preview port: on the right password, the preview cookie
// and a redirect back to where the visitor was going.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LivePort } from './live-ports.js';
import type { PreviewTarget } from './host.js';
import { errorPage, passwordPage } from './password-page.js';
import type { PreviewProtection } from './protection.js';
import { sendPage } from './refusals.js';

const LOGIN_BODY_MAX_BYTES = 8192;

export async function login(protection: PreviewProtection, request: IncomingMessage, response: ServerResponse, target: PreviewTarget, live: LivePort): Promise<void> {
  const form = new URLSearchParams(await readBody(request, LOGIN_BODY_MAX_BYTES).catch(() => ''));
  const next = safeNext(form.get('next'));
  const check = await protection.check(target, live.passwordHash!, form.get('password') ?? '');
  if (check.kind === 'throttled')
    return sendPage(response, { status: 429, html: errorPage('Too many wrong passwords', `Try again in ${check.retryAfterSeconds} s.`), headers: { 'retry-after': String(check.retryAfterSeconds) } });
  if (check.kind === 'wrong') return sendPage(response, { status: 401, html: passwordPage({ label: target.label, next, wrongPassword: true }) });
  response.writeHead(303, { location: next, 'set-cookie': protection.setCookieHeader(target, live.passwordHash!), 'cache-control': 'no-store', 'content-length': '0' });
  response.end();
}

/** Only a path on the same preview host: never an absolute or protocol-relative URL. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return reject(new Error('form too large'));
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
