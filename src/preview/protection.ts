// Password protection of a preview: a signed cookie for browsers (set after the password form), HTTP
// Basic auth for scripts, and a per-port throttle on wrong passwords.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { verifyPassword } from '../core/passwords.js';
import type { Limiter } from '../core/rate-limit.js';
import type { PreviewTarget } from './host.js';

export const COOKIE_NAME = 'paddock_preview';
const COOKIE_TTL_SECONDS = 7 * 86_400;
/** A verified password is remembered this long, so Basic auth does not cost a scrypt per request. */
const VERIFIED_TTL_MS = 5 * 60_000;
const VERIFIED_MAX_ENTRIES = 10_000;

export type PasswordCheck = { kind: 'ok' } | { kind: 'wrong' } | { kind: 'throttled'; retryAfterSeconds: number };

export class PreviewProtection {
  private readonly verified = new Map<string, number>();

  constructor(
    private readonly secret: Buffer,
    private readonly failures: Limiter,
    private readonly secureCookies: boolean,
  ) {}

  /** The signature covers the password hash, so a new password (or none) signs every browser out. */
  private sign(label: string, expiresAt: number, passwordHash: string): string {
    return createHmac('sha256', this.secret).update(`${label}\n${expiresAt}\n${passwordHash}`).digest('base64url');
  }

  setCookieHeader(target: PreviewTarget, passwordHash: string): string {
    const expiresAt = Math.floor(Date.now() / 1000) + COOKIE_TTL_SECONDS;
    const value = `${expiresAt}.${this.sign(target.label, expiresAt, passwordHash)}`;
    // No Domain attribute: the browser sends it back to this preview host only.
    return `${COOKIE_NAME}=${value}; Path=/; Max-Age=${COOKIE_TTL_SECONDS}; HttpOnly; SameSite=Lax${this.secureCookies ? '; Secure' : ''}`;
  }

  /** The request's valid preview cookie (its `name=value` pair) and when it expires (epoch ms), or null. */
  validCookie(request: { headers: { cookie?: string } }, target: PreviewTarget, passwordHash: string): { pair: string; expiresAt: number } | null {
    for (const value of cookieValues(request.headers.cookie, COOKIE_NAME)) {
      const [expires, signature] = value.split('.');
      const expiresAt = Number(expires);
      if (!signature || !Number.isInteger(expiresAt) || expiresAt * 1000 < Date.now()) continue;
      const expected = Buffer.from(this.sign(target.label, expiresAt, passwordHash));
      const given = Buffer.from(signature);
      if (given.length === expected.length && timingSafeEqual(given, expected)) return { pair: `${COOKIE_NAME}=${value}`, expiresAt: expiresAt * 1000 };
    }
    return null;
  }

  async check(target: PreviewTarget, passwordHash: string, password: string): Promise<PasswordCheck> {
    const used = await this.failures.used(target.label);
    if (used.consumed >= this.failures.points) return { kind: 'throttled', retryAfterSeconds: used.retryAfterSeconds };
    const cacheKey = createHash('sha256').update(`${target.label}\n${passwordHash}\n${password}`).digest('base64');
    if ((this.verified.get(cacheKey) ?? 0) > Date.now()) return { kind: 'ok' };
    if (await verifyPassword(password, passwordHash)) {
      if (this.verified.size >= VERIFIED_MAX_ENTRIES) this.verified.clear();
      this.verified.set(cacheKey, Date.now() + VERIFIED_TTL_MS);
      return { kind: 'ok' };
    }
    const decision = await this.failures.consume(target.label);
    return decision.allowed ? { kind: 'wrong' } : { kind: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
  }
}

/** The password of `Authorization: Basic …` (the user name is ignored), or null. */
export function basicAuthPassword(header: string | undefined): string | null {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : decoded.slice(colon + 1);
}

function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1));
}

/** The Cookie header without Paddock's own cookie, or undefined when nothing else is left. */
export function withoutPreviewCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const kept = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair && !pair.startsWith(`${COOKIE_NAME}=`));
  return kept.length ? kept.join('; ') : undefined;
}
