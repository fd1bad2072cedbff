// OpenAPI 3.1 generated from the route schemas, and the human docs page at /docs.
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ErrorResponse } from './error-body.js';
import { SCOPE_TABLE, SCOPES, scopesAdmitting, type RouteAccess } from './access.js';

const DESCRIPTION = `Paddock runs untrusted code and AI agents in isolated sandboxes, chains work into durable pipelines,
delegates tasks to agents over A2A, records what agents do, raises alerts and meters usage.

**Authentication.** Every endpoint except signup, login, pricing, agent card discovery and the system endpoints takes
\`Authorization: Bearer <API_KEY>\` (\`svc_sk_…\`) or a dashboard session token from \`/login\` (\`svc_ds_…\`, full scope).
A missing or invalid credential answers 401; a scope that does not cover the endpoint answers 403 with code \`scope_denied\`.

**Scopes.** ${SCOPES.map((scope) => `\`${scope}\`: ${SCOPE_TABLE[scope].areas.join(', ')}${SCOPE_TABLE[scope].writes ? '' : ' (GET only)'}`).join('; ')}.
Each operation lists the scopes that reach it in \`x-paddock-scopes\` and at the end of its description. Secret values are
for \`full\` keys only: naming \`secrets\` at sandbox create needs \`full\` (403 \`scope_denied\` naming \`body.secrets\`), and a
*confidential* sandbox — created with \`secrets\`, created by a pipeline stage or an eval run (it holds the pipeline's env and run
token), or restored from a confidential sandbox's snapshot — cannot be reached inside by narrower keys: exec, files, git, background processes,
terminal, preview protection, its snapshots' download and restore, restoring into it, and its sessions' replay and summary
answer 403 \`scope_denied\` (operations marked \`x-paddock-confidential\`). Its record, listing, pause, resume, snapshot creation and
destroy stay open to the sandbox scope; its \`env\` values show as \`***\` and a failed set-up step's \`error\` without its output to
narrower keys. A sandbox's plain \`env\` is otherwise sandbox data, readable by \`read\` keys: put values they must not see in secrets.
Masking of recorded output (\`***\` in session events and in a failed set-up step's \`error\`) is a second line only: it replaces the exact values injected, not an encoding of them (hex, base64,
reversed, split across lines), and nothing else (the exec answer itself, files, snapshots) is masked.

**Errors.** \`{"error": "<message naming the problem>", "code": "<code>", "field": "<field at fault>"}\` (\`field\` only when one
field is at fault), except under agent delegation (\`/v1/a2a\`, \`/.well-known/agent\`) where the body is
\`{"error": {"code", "message", "details"}}\`. Malformed JSON → 400, unknown body fields → 400, a content-type other than
\`application/json\` → 415, a body over the limit (1 MiB unless an endpoint says otherwise) → 413, a method no route serves
(TRACE, CONNECT, …) → 405. The \`code\` is stable and tells apart answers of one status (a 403 for scope from a 403 for a
plan limit); messages may be reworded. The \`Error\` schema lists every code with its status and meaning.
Refused before routing, with the same body: a path whose percent-encoding does not decode to UTF-8 → 400, a path segment over
400 characters → 414, raw non-ASCII bytes in the request target → 400, request headers over 16 KiB → 431.
A NUL character (U+0000) in a path id → 404 (no id holds one), in a query value or a JSON body string → 400 naming the field.

**Rate limits.** Per account by plan (free 60/min, pro 300, team 1000, enterprise configurable), per client IP on open
endpoints. Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (epoch seconds);
over the limit → 429 with \`Retry-After\`.

**Agent delegation limits.** Agent card discovery (\`/.well-known/agent.json\`, \`/.well-known/agent/{agentId}.json\`, an
agent's \`agent-card.json\`): 100 per minute per client IP (PADDOCK_RATE_LIMIT_DISCOVERY). Task creation: the agent's
\`rate_limit_rpm\` per agent. Task polling (\`GET /v1/a2a/tasks/{taskId}\`): 60 per minute per task. Streaming: one open
\`/stream\` connection per task (a second → 409 \`stream_already_open\`). Cost: the agent's \`max_cost_per_task\` per task
(reached → the task fails with \`budget_exceeded\`; a create that cannot fit → 402 \`budget_exceeded\`). Each of these 429s
carries the limiter's own \`X-RateLimit-*\` headers. Per-account and per-agent counts (agents, skills, task webhooks, push
configs) are listed on the operations that create them.

**Idempotency.** Every authenticated POST and PUT (creating sandboxes, snapshots, API keys, secrets, pipelines and
their versions, pipeline runs, eval scenarios, suites and runs, alert rules, ingested events, and the actions: exec,
pause, resume, restore, cancel, approve, reject, resolve, …) takes an optional \`Idempotency-Key\` header (1-255
characters; longer → 400); the operations that do list it as a header parameter. Exceptions: \`exec/stream\` (answered
as a stream) and \`PUT …/files/content\` (a raw body; writing the same bytes again is harmless). Keys are per account and
kept 24 h. The first request with a key does the work, and its answer (status, body, headers such as \`Location\`) is
kept, sealed, when it is a 2xx or a 4xx the work produced (a 404, a plan limit). A later request with the same key,
method, path and body (compared as JSON: key order and spacing do not matter) gets that answer again with
\`Idempotent-Replayed: true\`, and nothing is done again. The same key with another method, path or body → 422
\`idempotency_conflict\`. A duplicate arriving while the first is still running waits for its answer (up to 10 s), then
gets 409 \`idempotency_in_progress\` with \`Retry-After\`. Not kept, so a retry does the work: a 5xx, and requests refused
before the work starts (401, a scope 403, 429, a 400 from body validation). A key whose request never answered (the
server stopped mid-request) is freed after 10 minutes.

**Ids and times.** Ids are opaque, prefixed and sortable by creation time (\`acc_…\`, \`key_…\`). Times are ISO 8601 UTC.`;

/**
 * An error response refers to the shared Error schema, whose description is the whole code table; the
 * response's own description would repeat it for every status of every route (megabytes). Each says its
 * status instead.
 */
function shortErrorDescriptions(response: unknown): unknown {
  if (!response || typeof response !== 'object') return response;
  const entries = Object.entries(response as Record<string, { $ref?: unknown }>).map(([status, value]) => {
    const isError = value && typeof value === 'object' && value.$ref === ErrorResponse.$ref;
    return [status, isError ? { ...value, description: `${STATUS_CODES[Number(status)] ?? 'Error'}: an \`Error\` body (see its schema for the codes).` } : value];
  });
  return Object.fromEntries(entries);
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Paddock API', version: '1', description: DESCRIPTION },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (svc_sk_…) or session token (svc_ds_…)' } } },
      security: [{ bearer: [] }],
    },
    // Shared schemas appear under their own names (#/components/schemas/Error), not def-0, def-1, ….
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // Open routes need no credential, the others list the scopes that reach them: say so per operation.
    transform: ({ schema: routeSchema, url, route }) => {
      const schema = routeSchema && { ...routeSchema, response: shortErrorDescriptions(routeSchema.response) };
      const access: RouteAccess = route.config?.access ?? { kind: 'key', area: 'account' };
      if (access.kind === 'open') return { schema: { ...schema, security: [] }, url };
      const method = Array.isArray(route.method) ? route.method[0] : route.method;
      const scopes = scopesAdmitting(access, method);
      const confidential = Boolean(access.reaches?.length);
      const note = `Scopes: ${scopes.map((scope) => `\`${scope}\``).join(', ')}.${confidential ? ' On a confidential sandbox (or its snapshot or session) only `full`.' : ''}`;
      const description = schema?.description ? `${schema.description} ${note}` : note;
      return { schema: { ...schema, description, 'x-paddock-scopes': scopes, ...(confidential ? { 'x-paddock-confidential': true } : {}) }, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}
