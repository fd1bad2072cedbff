// The dashboard's session travels in an HttpOnly cookie, never in script-readable storage: an injected
// script cannot read it. Cross-site requests do not carry it (SameSite=Strict), and a request that
// changes something must also echo the CSRF token, which only a page of this origin can read (from
// GET /v1/dashboard/session; no CORS), so a forged form or fetch from another site fails either way.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'paddock_session';
export const CSRF_HEADER = 'x-paddock-csrf';

/** Bound to the session token (which the page cannot read), so it needs no storage and dies with the session. */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`paddock-csrf:${sessionToken}`).digest('base64url');
}

export function csrfMatches(sessionToken: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function sessionCookieOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === SESSION_COOKIE) {
      const value = part.slice(separator + 1).trim();
      return value === '' ? null : value;
    }
  }
  return null;
}

/** Secure whenever the page was reached over HTTPS (directly or through a proxy that says so). */
export function sessionCookieHeader(request: FastifyRequest, token: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' || request.headers['x-forwarded-proto'] === 'https';
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookieHeader(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}
