// The hook every request passes: who is calling (bearer credential, or a single-use URL ticket where the
// route accepts one), how fast (rate limit headers on every response), and whether the route's area is
// within the credential's scope. Routes only declare `config.access`; a route that declares nothing
// needs a full-scope credential. A route that reaches inside a sandbox, snapshot or session declares
// where it names it (`reaches`); when that thing is confidential, only a scope that reads secrets passes.
import { clientAddress } from './client-address.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Plan } from './db/column-values.js';
import { scopeAllows, scopeReadsSecrets, type ConfidentialLookup, type OpenLimit, type Principal, type RouteAccess } from './access.js';
import { Forbidden, TooManyRequests, Unauthorized } from './errors.js';
import type { Limiter, LimiterFactory } from './rate-limit.js';
import { CSRF_HEADER, csrfMatches, sessionCookieOf } from './session-cookie.js';
import './fastify-types.js';

const DEFAULT_ACCESS: RouteAccess = { kind: 'key', area: 'account' };

export interface RequestGuardOptions {
  /** Requests per minute: per plan for keys, per IP for open, discovery and system routes. */
  config: { rateLimitPerMinute: Record<Plan, number>; openRateLimitPerMinute: number; discoveryRateLimitPerMinute: number; systemRateLimitPerMinute: number };
  limiters: LimiterFactory;
  authenticate(credential: string): Promise<Principal | null>;
}

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The dashboard's session cookie, when no Authorization header is sent. Not on ticket routes (WebSocket
 * upgrades carry cookies and have no CSRF header: the dashboard gets a ticket instead), and a request that
 * changes something must echo the session's CSRF token.
 */
function cookieSession(request: FastifyRequest, access: RouteAccess): string | null {
  if (access.kind !== 'key' || request.headers.authorization) return null;
  const token = sessionCookieOf(request);
  if (!token) return null;
  if (!SAFE_METHODS.has(request.method) && !csrfMatches(token, request.headers[CSRF_HEADER] as string | undefined)) {
    throw new Forbidden(`a dashboard session request that changes something needs the ${CSRF_HEADER} header from GET /v1/dashboard/session`, 'csrf_failed');
  }
  return token;
}

function urlTicket(request: FastifyRequest): string | null {
  const value = (request.query as Record<string, unknown> | undefined)?.ticket;
  return typeof value === 'string' && value !== '' ? value : null;
}

export interface RequestGuard {
  /** Wired once the features that know what is confidential exist; until then nothing is. */
  useConfidentialLookup(lookup: ConfidentialLookup): void;
}

export async function registerRequestGuard(app: FastifyInstance, options: RequestGuardOptions): Promise<RequestGuard> {
  const { config } = options;
  const perPlan = {
    free: await options.limiters.create({ keyPrefix: 'plan_free', points: config.rateLimitPerMinute.free, durationSeconds: 60 }),
    pro: await options.limiters.create({ keyPrefix: 'plan_pro', points: config.rateLimitPerMinute.pro, durationSeconds: 60 }),
    team: await options.limiters.create({ keyPrefix: 'plan_team', points: config.rateLimitPerMinute.team, durationSeconds: 60 }),
    enterprise: await options.limiters.create({ keyPrefix: 'plan_enterprise', points: config.rateLimitPerMinute.enterprise, durationSeconds: 60 }),
  };
  const perIp: Record<OpenLimit, Limiter> = {
    open: await options.limiters.create({ keyPrefix: 'ip_open', points: config.openRateLimitPerMinute, durationSeconds: 60 }),
    discovery: await options.limiters.create({ keyPrefix: 'ip_discovery', points: config.discoveryRateLimitPerMinute, durationSeconds: 60 }),
    system: await options.limiters.create({ keyPrefix: 'ip_system', points: config.systemRateLimitPerMinute, durationSeconds: 60 }),
  };

  app.decorateRequest('principal', null);

  app.addHook('onRequest', async (request, reply) => {
    const access = request.routeOptions.config?.access ?? (request.is404 ? ({ kind: 'open', limit: 'system' } as const) : DEFAULT_ACCESS);
    const credential = access.kind === 'open' ? null : (bearer(request) ?? cookieSession(request, access));
    const ticket = access.kind === 'ticket' && !credential ? urlTicket(request) : null;
    let principal: Principal | null = null;
    if (credential) principal = await options.authenticate(credential);
    else if (ticket && access.kind === 'ticket') principal = access.redeem(ticket, request.params as Record<string, string>);

    // Unauthenticated calls to protected routes count against the caller's IP, which bounds key guessing.
    const decision = principal ? await perPlan[principal.plan].consume(principal.accountId) : await perIp[access.kind === 'open' ? access.limit : 'open'].consume(clientAddress(request));
    reply.header('x-ratelimit-limit', decision.limit);
    reply.header('x-ratelimit-remaining', decision.remaining);
    reply.header('x-ratelimit-reset', decision.resetAt);
    if (!decision.allowed) throw new TooManyRequests(`rate limit of ${decision.limit} requests per minute exceeded`, decision.retryAfterSeconds);

    if (access.kind === 'open') return;
    if (ticket && !principal) throw new Unauthorized('invalid, expired or already used ticket: tickets are single-use, short-lived and bound to one sandbox');
    if (!credential && !ticket) throw new Unauthorized(`missing API key: send Authorization: Bearer <API_KEY>${access.kind === 'ticket' ? ' or a ?ticket= obtained with it' : ''}`);
    if (!principal) throw new Unauthorized('invalid, expired or revoked API key');
    if (!scopeAllows(principal.scope, access.area, request.method, access.writes)) {
      throw new Forbidden(`this ${principal.scope}-scope key cannot ${request.method} ${access.area} endpoints`, 'scope_denied');
    }
    request.principal = principal;
  });

  let confidential: ConfidentialLookup = async () => false;
  // Before the body is parsed for what the path and query name (a content-type refusal must not answer
  // first), after it for what the body names; before validation either way: a narrower key gets the same
  // 403 whatever else is wrong with its request. Ids are not validated yet; lookups treat an id no
  // resource could have as naming nothing.
  async function refuseConfidential(request: FastifyRequest, fromBody: boolean): Promise<void> {
    const access = request.routeOptions.config?.access;
    const principal = request.principal;
    if (!access || access.kind === 'open' || !access.reaches?.length || !principal || scopeReadsSecrets(principal.scope)) return;
    for (const ref of access.reaches) {
      if ((ref.from === 'body') !== fromBody) continue;
      const id = (request[ref.from] as Record<string, unknown> | undefined)?.[ref.field];
      if (typeof id !== 'string' || !(await confidential(ref.kind, principal.accountId, id))) continue;
      throw new Forbidden(
        `this ${principal.scope}-scope key cannot reach inside ${ref.kind} ${id} (${ref.from}.${ref.field}): it holds account secret values or a pipeline's env, which only a full-scope key may read`,
        'scope_denied',
      );
    }
  }
  app.addHook('preParsing', async (request) => refuseConfidential(request, false));
  app.addHook('preValidation', async (request) => refuseConfidential(request, true));

  return {
    useConfidentialLookup(lookup) {
      confidential = lookup;
    },
  };
}
