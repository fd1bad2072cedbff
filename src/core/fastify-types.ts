// What Paddock adds to Fastify's request and route config.
import type { Principal, RouteAccess } from './access.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** Honours the Idempotency-Key header (src/core/idempotency/hook.ts). */
    idempotent?: boolean;
    /** The JSON body may hold U+0000 in its strings: the route checks and stores it itself (see nul-guard.ts). */
    acceptsNul?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export {};
