// The dashboard's sign-in: the same login as POST /login, but the session token goes into an HttpOnly
// cookie (session-cookie.ts) instead of the page's hands. GET answers who is signed in and the CSRF
// token the page echoes on writes; DELETE signs out (the token stops working at once).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AccountService } from '../accounts/service.js';
import { Account, LoginBody } from '../accounts/schemas.js';
import { ErrorResponse } from '../core/error-body.js';
import { NoContent } from '../core/schemas.js';
import { clearedSessionCookieHeader, csrfTokenFor, CSRF_HEADER, sessionCookieHeader, sessionCookieOf } from '../core/session-cookie.js';

// The accounts plugin registers `Account` in its own scope, out of this one's reach: inlined here.
const { $id: _accountId, ...AccountShape } = Account;

const DashboardSession = Type.Object({
  account: AccountShape,
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the session cookie stops working (null when it is unknown to this answer).' }),
  csrf_token: Type.String({ description: `Echo it in the \`${CSRF_HEADER}\` header on every request that changes something.` }),
});

const SignedOut = Type.Object({ account: Type.Null(), expires_at: Type.Null(), csrf_token: Type.Null() });

export function dashboardSessionRoutes(accounts: AccountService, sessionTtlSeconds: number): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.post('/v1/dashboard/session', {
      config: { access: { kind: 'open', limit: 'open' } },
      schema: {
        tags: ['dashboard'],
        summary: 'Sign in to the dashboard (session cookie)',
        description:
          'Open. The login of `POST /login`, with the same answers for a wrong email or password (401) and repeated failures (429), but the session token is set as an HttpOnly, SameSite=Strict cookie (`Secure` over HTTPS) and never returned. Requests carrying the cookie and no Authorization header are authenticated by it; those that change something must also send `X-Paddock-CSRF`.',
        body: LoginBody,
        response: { 200: DashboardSession, 400: ErrorResponse, 401: ErrorResponse, 429: ErrorResponse },
      },
      handler: async (request, reply) => {
        const { token, expires_at, account } = await accounts.login(request.body);
        reply.header('set-cookie', sessionCookieHeader(request, token, sessionTtlSeconds));
        return { account, expires_at, csrf_token: csrfTokenFor(token) };
      },
    });

    app.get('/v1/dashboard/session', {
      config: { access: { kind: 'open', limit: 'open' } },
      schema: {
        tags: ['dashboard'],
        summary: 'The signed-in dashboard session',
        description:
          'Open: reads the session cookie only (not an Authorization header). Signed in: the account and the CSRF token. Otherwise `{"account": null, "csrf_token": null}` with 200, so a signed-out page can ask without an error. Cross-origin pages cannot read this answer (no CORS), which keeps the CSRF token secret.',
        response: { 200: Type.Union([DashboardSession, SignedOut]), 429: ErrorResponse },
      },
      handler: async (request) => {
        const token = sessionCookieOf(request);
        const principal = token ? await accounts.authenticate(token) : null;
        if (!token || !principal || principal.keyId !== null) return { account: null, expires_at: null, csrf_token: null };
        return { account: await accounts.getAccount(principal.accountId), expires_at: null, csrf_token: csrfTokenFor(token) };
      },
    });

    app.delete('/v1/dashboard/session', {
      config: { access: { kind: 'open', limit: 'open' } },
      schema: {
        tags: ['dashboard'],
        summary: 'Sign out of the dashboard',
        description: 'Open, and idempotent: ends the session the cookie names (if any) and clears the cookie. Answers 204 either way.',
        response: { 204: NoContent, 429: ErrorResponse },
      },
      handler: async (request, reply) => {
        const token = sessionCookieOf(request);
        if (token) await accounts.logout(token);
        reply.header('set-cookie', clearedSessionCookieHeader());
        return reply.code(204).send();
      },
    });
  };
}
