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

export type RouteAccess = { kind: 'open'; limit: OpenLimit } | { kind: 'key'; area: Area };

export interface Principal {
  accountId: string;
  plan: Plan;
  scope: Scope;
  /** The API key used, or null for a dashboard session token. */
  keyId: string | null;
}

const SANDBOX_SCOPE_AREAS: ReadonlySet<Area> = new Set(['sandboxes', 'snapshots']);
const READ_SCOPE_AREAS: ReadonlySet<Area> = new Set(['sandboxes', 'sessions']);

export function scopeAllows(scope: Scope, area: Area, method: string): boolean {
  switch (scope) {
    case 'full':
      return true;
    case 'sandbox':
      return SANDBOX_SCOPE_AREAS.has(area);
    case 'read':
      return READ_SCOPE_AREAS.has(area) && (method === 'GET' || method === 'HEAD');
  }
}

/** A credential may only mint credentials it could itself use: `sandbox` and `read` do not contain
 * each other (read reaches sessions, sandbox does not), so only `full` contains another scope. */
export function scopeContains(holder: Scope, requested: Scope): boolean {
  return holder === 'full' || holder === requested;
}
