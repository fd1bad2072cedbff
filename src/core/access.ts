// Who may call what: route metadata declares an area, and this one table decides per scope.
import type { Plan } from './db/column-values.js';

export type Scope = 'full' | 'sandbox' | 'read';
export const SCOPES: readonly Scope[] = ['full', 'sandbox', 'read'];

/** What a route touches. `sandboxes` covers sandbox, port, file, exec and terminal endpoints; `operator` the server operators' billing administration. */
export type Area = 'account' | 'sandboxes' | 'snapshots' | 'sessions' | 'events' | 'pipelines' | 'a2a' | 'alerts' | 'webhooks' | 'billing' | 'operator';

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
  | { kind: 'key'; area: Area; writes?: boolean; reaches?: readonly ConfidentialRef[] }
  | { kind: 'ticket'; area: Area; writes?: boolean; reaches?: readonly ConfidentialRef[]; redeem: TicketRedeemer };

/**
 * Things that can hold confidential data (what only a scope that reads secrets may see): a sandbox
 * whose processes carry secret values or a pipeline's env, a snapshot of such a sandbox, and a
 * session recording such a sandbox's commands.
 */
export type ConfidentialKind = 'sandbox' | 'snapshot' | 'session';

/** Where a route names something it reaches inside of: `params.id`, `body.sandbox_id`, … */
export interface ConfidentialRef {
  kind: ConfidentialKind;
  from: 'params' | 'body';
  field: string;
}

/** Answers whether the account's thing of that kind and id is confidential (false when unknown: the route answers 404). */
export type ConfidentialLookup = (kind: ConfidentialKind, accountId: string, id: string) => Promise<boolean>;

export interface Principal {
  accountId: string;
  plan: Plan;
  scope: Scope;
  /** The API key used, or null for a dashboard session token. */
  keyId: string | null;
}

/**
 * The scope table, written down once: which areas each scope reaches (read: GET only), and whether it
 * may read secret values. Everything else answers 403 with code `scope_denied`.
 */
export const SCOPE_TABLE: Readonly<Record<Scope, { areas: readonly Area[]; writes: boolean; readsSecrets: boolean }>> = {
  full: { areas: ['account', 'sandboxes', 'snapshots', 'sessions', 'events', 'pipelines', 'a2a', 'alerts', 'webhooks', 'billing', 'operator'], writes: true, readsSecrets: true },
  sandbox: { areas: ['sandboxes', 'snapshots'], writes: true, readsSecrets: false },
  read: { areas: ['sandboxes', 'sessions'], writes: false, readsSecrets: false },
};

/** `writes` overrides what the method says about whether the call changes anything. */
export function scopeAllows(scope: Scope, area: Area, method: string, writes = method !== 'GET' && method !== 'HEAD'): boolean {
  const entry = SCOPE_TABLE[scope];
  return entry.areas.includes(area) && (entry.writes || !writes);
}

/**
 * Secret values, and what carries them (see ConfidentialKind), are for scopes that may read secrets:
 * `full`. A `sandbox` key that could name secrets at create, or exec in a sandbox holding them, could
 * print them, so the scope rule is the boundary and output masking only a second line.
 */
export function scopeReadsSecrets(scope: Scope): boolean {
  return SCOPE_TABLE[scope].readsSecrets;
}

/** The scopes a route's access admits, for the OpenAPI document and its tests. */
export function scopesAdmitting(access: RouteAccess, method: string): Scope[] {
  if (access.kind === 'open') return [];
  return SCOPES.filter((scope) => scopeAllows(scope, access.area, method, access.writes));
}

/** A credential may only mint credentials it could itself use: `sandbox` and `read` do not contain
 * each other (read reaches sessions, sandbox does not), so only `full` contains another scope. */
export function scopeContains(holder: Scope, requested: Scope): boolean {
  return holder === 'full' || holder === requested;
}
