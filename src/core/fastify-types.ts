// What Paddock adds to Fastify's request and route config.
import type { Principal, RouteAccess } from './access.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export {};
