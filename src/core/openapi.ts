// OpenAPI 3.1 generated from the route schemas, and the human docs page at /docs.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

const DESCRIPTION = `Paddock runs untrusted code and AI agents in isolated sandboxes, chains work into durable pipelines,
delegates tasks to agents over A2A, records what agents do, raises alerts and meters usage.

**Authentication.** Every endpoint except signup, login, pricing, agent card discovery and the system endpoints takes
\`Authorization: Bearer <API_KEY>\` (\`svc_sk_…\`) or a dashboard session token from \`/login\` (\`svc_ds_…\`, full scope).
A missing or invalid credential answers 401; a scope that does not cover the endpoint answers 403.

**Errors.** \`{"error": "<message naming the problem>"}\`, except under agent delegation (\`/v1/a2a\`, \`/.well-known/agent\`)
where the body is \`{"error": {"code", "message", "details"}}\`. Malformed JSON → 400, unknown body fields → 400,
a content-type other than \`application/json\` → 415, a body over the limit (1 MiB unless an endpoint says otherwise) → 413.
Refused before routing, with the same body: a path whose percent-encoding does not decode to UTF-8 → 400, a path segment over
400 characters → 414, raw non-ASCII bytes in the request target → 400, request headers over 16 KiB → 431.
A NUL character (U+0000) in a path id → 404 (no id holds one), in a query value or a JSON body string → 400 naming the field.

**Rate limits.** Per account by plan (free 60/min, pro 300, team 1000, enterprise configurable), per client IP on open
endpoints. Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (epoch seconds);
over the limit → 429 with \`Retry-After\`.

**Ids and times.** Ids are opaque, prefixed and sortable by creation time (\`acc_…\`, \`key_…\`). Times are ISO 8601 UTC.`;

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Paddock API', version: '1', description: DESCRIPTION },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (svc_sk_…) or session token (svc_ds_…)' } } },
      security: [{ bearer: [] }],
    },
    // Open routes need no credential: say so per operation.
    transform: ({ schema, url, route }) => {
      const open = route.config?.access?.kind === 'open';
      return { schema: open ? { ...schema, security: [] } : schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}
