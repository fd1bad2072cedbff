// HTTP surface of sessions and events: ingest, the sessions of a sandbox, one session, replay pages and
// the replay summary.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { SandboxParams } from '../sandboxes/schemas.js';
import { MAX_EVENTS_PER_REQUEST, MAX_INGEST_BODY_BYTES } from './ingest-validation.js';
import { AccountSessionListQuery, IngestBody, IngestResult, MAX_REPLAY_LIMIT, ReplayPage, ReplayQuery, ReplaySummary, Session, SessionListQuery, SessionParams } from './schemas.js';
import { RECORDED_OUTPUT_CHARS } from './command-recording.js';
import type { SessionService } from './service.js';
import { ErrorResponse } from '../core/error-body.js';

const readSessions = { access: { kind: 'key', area: 'sessions' } } as const;
const writeEvents = { access: { kind: 'key', area: 'events' } } as const;
/** Recorded events carry command output; a confidential sandbox's is not for narrower scopes (masking is only a second line). */
const readEvents = { access: { kind: 'key', area: 'sessions', reaches: [{ kind: 'session', from: 'params', field: 'id' }] } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 429: Err };

export function sessionRoutes(service: SessionService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.post('/v1/events/ingest', {
      config: { ...writeEvents, idempotent: true, acceptsNul: true },
      bodyLimit: MAX_INGEST_BODY_BYTES,
      schema: {
        tags: ['sessions'],
        summary: 'Push observability events',
        description: `Stores a batch of agent events (at most ${MAX_EVENTS_PER_REQUEST} events and a 4 MiB body: more events → 400, a larger body → 413). Always 200 when the body is well-formed: each event is validated on its own and the refused ones are listed in \`details\` by index with the reason, while the others are stored in one transaction. The account comes from the API key, never from the event. Within a session, events get \`sequence\` 1, 2, 3 … in the order received (batch order), with no gaps. A session is created by its first event (status \`active\`) and ends with a lifecycle event whose payload.status is \`completed\` or \`failed\`, or after inactivity (\`timeout\`, see PADDOCK_SESSION_INACTIVITY_TIMEOUT_SECONDS; a later event reactivates it). llm_call costs come from \`payload.cost_usd\` when sent, otherwise from the model price table. Needs a \`full\`-scope key.`,
        body: IngestBody,
        response: { 200: IngestResult, ...errors, 413: Err },
      },
      handler: async (request) => service.ingest(request.principal!.accountId, request.body.events),
    });

    app.get('/v1/sandboxes/:id/sessions', {
      config: readSessions,
      schema: {
        tags: ['sessions'],
        summary: "List a sandbox's sessions",
        description: `Newest first, paginated with limit (default 100, at most ${MAX_REPLAY_LIMIT}) and offset, optionally filtered by status. Commands run through the exec API are recorded in the sandbox's active session, or in a new one with agent_type \`paddock-exec\`. An unknown sandbox or another account's answers 404.`,
        params: SandboxParams,
        querystring: SessionListQuery,
        response: { 200: Type.Array(Session), ...errors },
      },
      handler: async (request) =>
        service.listForSandbox(request.principal!.accountId, request.params.id, { limit: request.query.limit ?? 100, offset: request.query.offset ?? 0, status: request.query.status }),
    });

    app.get('/v1/sessions', {
      config: readSessions,
      schema: {
        tags: ['sessions'],
        summary: "List the account's sessions",
        description: `Not shown in the spec. Newest first, paginated with limit (default 100, at most ${MAX_REPLAY_LIMIT}) and offset; filters \`pipeline_run_id\` (the run's own session plus the sessions of the sandboxes its stages created), \`sandbox_id\` and \`status\` combine. An unknown or another account's run or sandbox matches nothing.`,
        querystring: AccountSessionListQuery,
        response: { 200: Type.Array(Session), ...errors },
      },
      handler: async (request) => {
        const { limit = 100, offset = 0, pipeline_run_id: pipelineRunId, sandbox_id: sandboxId, status } = request.query;
        return service.list(request.principal!.accountId, { pipelineRunId, sandboxId, status }, { limit, offset });
      },
    });

    app.get('/v1/sessions/:id', {
      config: readSessions,
      schema: {
        tags: ['sessions'],
        summary: 'Get a session',
        description: "Totals over all its events: tokens, cost (LLM + compute), trust score, event count and duration. Another account's session answers 404.",
        params: SessionParams,
        response: { 200: Session, ...errors },
      },
      handler: async (request) => service.view(request.principal!.accountId, request.params.id),
    });

    app.get('/v1/sessions/:id/replay', {
      config: readEvents,
      schema: {
        tags: ['sessions'],
        summary: "Page through a session's events in order",
        description: `Events with sequence > after_seq (default 0), ordered by sequence, at most \`limit\` (default 100, at most ${MAX_REPLAY_LIMIT}), optionally of one \`type\`. Continue with after_seq = next_seq while has_more is true; an after_seq past the end answers an empty page. \`total\` counts the session's events (of that type when filtered). Recorded exec output is cut to ${RECORDED_OUTPUT_CHARS} characters.`,
        params: SessionParams,
        querystring: ReplayQuery,
        response: { 200: ReplayPage, ...errors },
      },
      handler: async (request, reply) => {
        const page = await service.replay(request.principal!.accountId, request.params.id, { afterSeq: request.query.after_seq ?? 0, limit: request.query.limit ?? 100, type: request.query.type });
        return reply.type('application/json; charset=utf-8').send(page);
      },
    });

    app.get('/v1/sessions/:id/replay/summary', {
      config: readEvents,
      schema: {
        tags: ['sessions'],
        summary: 'Summarize a session',
        description:
          'Counts per event type, the time range (first and last event timestamp) and duration, tokens, cost, the trust score and every stored trust finding (rule, severity, weight, the points it took, the event sequence and evidence) in event order. The trust model is documented in docs/trust.md.',
        params: SessionParams,
        response: { 200: ReplaySummary, ...errors },
      },
      handler: async (request) => service.summary(request.principal!.accountId, request.params.id),
    });
  };
}
