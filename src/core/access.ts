// Who may call what: route metadata declares an area, and this one table decides per scope.
import type { Plan } from '../config.js';

export type Scope = 'full' | 'sandbox' | 'read';
export const SCOPES: readonly Scope[] = ['full', 'sandbox', 'read'];

/** What a route touches. `sandboxes` covers sandbox, port, file, exec and terminal endpoints. */
export type Area =
  | 'account'
  | 'sandboxes'
  | 'snapshots'
  | 'sessions'
  | 'events'
  | 'pipelines'
  | 'a2a'
  | 'alerts'
  | 'billing';

export type OpenLimit = 'open' | 'discovery' | 'system';

/** Exchanges a single-use URL ticket for the principal that minted it, or null when the ticket is unknown,
 * spent, expired or minted for other route params (another sandbox). Presenting a ticket spends it. */
export type TicketRedeemer = (ticket: string, params: Readonly<Record<string, string | undefined>>) => Principal | null;

/**
 * `open`: no credential, rate-limited per IP. `key`: a bearer credential whose scope covers `area`.
 * `ticket`: as `key`, or — for browsers, which cannot set headers on a WebSocket — a single-use
 * `?ticket=` that `redeem` exchanges for the principal that minted it. `writes` marks a GET that acts
 * (a terminal runs commands), so read-only scopes are refused as for a POST.
 */
export type RouteAccess =
  | { kind: 'open'; limit: OpenLimit }
  | { kind: 'key'; area: Area; writes?: boolean }
  | { kind: 'ticket'; area: Area; writes?: boolean; redeem: TicketRedeemer };

export interface Principal {
  accountId: string;
  plan: Plan;
  scope: Scope;
  /** The API key used, or null for a dashboard session token. */
  keyId: string | null;
}

const SANDBOX_SCOPE_AREAS: ReadonlySet<Area> = new Set(['sandboxes', 'snapshots']);
const READ_SCOPE_AREAS: ReadonlySet<Area> = new Set(['sandboxes', 'sessions']);

/** `writes` overrides what the method says about whether the call changes anything. */
export function scopeAllows(scope: Scope, area: Area, method: string, writes = method !== 'GET' && method !== 'HEAD'): boolean {
  switch (scope) {
    case 'full':
      return true;
    case 'sandbox':
      return SANDBOX_SCOPE_AREAS.has(area);
    case 'read':
      return READ_SCOPE_AREAS.has(area) && !writes;
  }
}

/** A credential may only mint credentials it could itself use: `sandbox` and `read` do not contain
 * each other (read reaches sessions, sandbox does not), so only `full` contains another scope. */
export function scopeContains(holder: Scope, requested: Scope): boolean {
  return holder === 'full' || holder === requested;
}
