// HTTP surface of runs: start, list, read, cancel, stages and their logs, approvals, the timeline and state.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors, pipelineAccess } from './routes.js';
import type { RunService } from './runs/service.js';
import {
  DecisionBody,
  DecisionResult,
  EventsQuery,
  MAX_INTEGER_PARAM,
  Page,
  PipelineParams,
  PutStateBody,
  Run,
  RunEvents,
  RunListItem,
  RunParams,
  StageLogParams,
  StageLogs,
  StageRecord,
  StartRunBody,
  StateEntry,
  StateParams,
} from './schemas.js';
import { NoContent } from '../core/schemas.js';

const STATE_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export function runRoutes(service: RunService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.post('/v1/pipelines/:id/runs', {
      config: { ...pipelineAccess, idempotent: true },
      schema: {
        tags: ['pipelines'],
        summary: 'Start a run',
        description:
          "Creates a run of the pipeline's current version with status `pending`; `input` echoes env, repo and branch. A worker picks it up within the poll interval (at once on this server). `env` applies to every stage and a stage `env` overrides it. 409 for an archived pipeline.",
        params: PipelineParams,
        body: StartRunBody,
        response: { 201: Run, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(await service.start(request.principal!.accountId, request.params.id, request.body ?? {})),
    });

    app.get('/v1/pipelines/:id/runs', {
      config: pipelineAccess,
      schema: {
        tags: ['pipelines'],
        summary: 'List runs',
        description: 'Newest first; limit default 20 (at most 100), offset default 0.',
        params: PipelineParams,
        querystring: Page,
        response: { 200: Type.Array(RunListItem), ...errors },
      },
      handler: async (request) => service.list(request.principal!.accountId, request.params.id, { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 }),
    });

    app.get('/v1/pipelines/:id/runs/:run_id', {
      config: pipelineAccess,
      schema: { tags: ['pipelines'], summary: 'Get a run', description: 'The run with every stage record.', params: RunParams, response: { 200: Run, ...errors } },
      handler: async (request) => service.get(request.principal!.accountId, request.params.id, request.params.run_id),
    });

    app.post('/v1/pipelines/:id/runs/:run_id/cancel', {
      config: { ...pipelineAccess, idempotent: true },
      schema: {
        tags: ['pipelines'],
        summary: 'Cancel a run',
        description:
          'Pending, running and paused runs become `canceled`; unfinished stages become `canceled`, running attempts are killed and their sandboxes destroyed. 409 when the run already ended.',
        params: RunParams,
        response: { 204: NoContent, ...errors },
      },
      handler: async (request, reply) => {
        await service.cancel(request.principal!.accountId, request.params.id, request.params.run_id);
        return reply.code(204).send();
      },
    });

    app.get('/v1/pipelines/:id/runs/:run_id/stages', {
      config: pipelineAccess,
      schema: { tags: ['pipelines'], summary: "List a run's stages", params: RunParams, response: { 200: Type.Array(StageRecord), ...errors } },
      handler: async (request) => service.stages(request.principal!.accountId, request.params.id, request.params.run_id),
    });

    app.get('/v1/pipelines/:id/runs/:run_id/stages/:stage/logs', {
      config: pipelineAccess,
      schema: {
        tags: ['pipelines'],
        summary: "A stage's logs",
        description: "Not shown in the spec. stdout and stderr of every attempt of the stage (or of `attempt`), with exit code and status; a running attempt's logs are saved at each lease renewal.",
        params: StageLogParams,
        querystring: Type.Object({ attempt: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INTEGER_PARAM })) }),
        response: { 200: StageLogs, ...errors },
      },
      handler: async (request) => service.logs(request.principal!.accountId, request.params.id, request.params.run_id, request.params.stage, request.query.attempt),
    });

    for (const decision of ['approve', 'reject'] as const) {
      app.post(`/v1/pipelines/:id/runs/:run_id/${decision}`, {
        config: { ...pipelineAccess, idempotent: true },
        schema: {
          tags: ['pipelines'],
          summary: decision === 'approve' ? 'Approve a paused run' : 'Reject a paused run',
          description: `Not shown in the spec. Decides the stage waiting in \`paused_approval\`, recording who (the API key), when and the comment. ${decision === 'approve' ? 'The stage succeeds and the run resumes.' : 'The run becomes `canceled`.'} Repeating the decision already taken answers it again; 409 when nothing waits.`,
          params: RunParams,
          body: Type.Optional(DecisionBody),
          response: { 200: DecisionResult, ...errors },
        },
        handler: async (request) => service.decide(request.principal!, request.params.id, request.params.run_id, decision, request.body?.comment ?? null),
      });
    }

    app.get('/v1/pipelines/:id/runs/:run_id/events', {
      config: pipelineAccess,
      schema: {
        tags: ['pipelines'],
        summary: "A run's timeline",
        description:
          "The pipeline lifecycle events of the run in order (`pipeline.run.created/started/completed/failed/canceled`, `pipeline.stage.started/completed/failed/skipped/retrying/paused_approval/approved/rejected/approval_auto_decided/lease_expired/interrupted`), each written in the transaction of the transition it reports. Page with after_seq. The same events are appended to the run's session (`session_id` on the run) for replay with agent events, cost and trust.",
        params: RunParams,
        querystring: EventsQuery,
        response: { 200: RunEvents, ...errors },
      },
      handler: async (request) => service.timeline(request.principal!.accountId, request.params.id, request.params.run_id, request.query.after_seq ?? 0, request.query.limit ?? 100),
    });

    app.get('/v1/pipelines/:id/runs/:run_id/state', {
      config: pipelineAccess,
      schema: { tags: ['pipelines'], summary: "List a run's state", description: 'Entries not yet expired, by key.', params: RunParams, response: { 200: Type.Array(StateEntry), ...errors } },
      handler: async (request) => service.stateList(request.principal!.accountId, request.params.id, request.params.run_id),
    });

    app.get('/v1/pipelines/:id/runs/:run_id/state/:key', {
      config: pipelineAccess,
      schema: { tags: ['pipelines'], summary: 'Get a state entry', description: '404 when the key does not exist or expired.', params: StateParams, response: { 200: StateEntry, ...errors } },
      handler: async (request) => service.stateGet(request.principal!.accountId, request.params.id, request.params.run_id, request.params.key),
    });

    app.put('/v1/pipelines/:id/runs/:run_id/state/:key', {
      config: { ...pipelineAccess, idempotent: true },
      // A 1 MB value grows when JSON-escaped; the service measures the stored value and answers 400.
      bodyLimit: STATE_BODY_LIMIT_BYTES,
      schema: {
        tags: ['pipelines'],
        summary: 'Set a state entry',
        description: 'Creates or replaces. 400 when the key exceeds 256 characters, the value 1 MB, the run would exceed 100 entries or 10 MB, or ttl_seconds exceeds 30 days.',
        params: StateParams,
        body: PutStateBody,
        response: { 200: StateEntry, ...errors },
      },
      handler: async (request) => service.statePut(request.principal!.accountId, request.params.id, request.params.run_id, request.params.key, request.body),
    });

    app.delete('/v1/pipelines/:id/runs/:run_id/state/:key', {
      config: pipelineAccess,
      schema: { tags: ['pipelines'], summary: 'Delete a state entry', params: StateParams, response: { 204: NoContent, ...errors } },
      handler: async (request, reply) => {
        await service.stateDelete(request.principal!.accountId, request.params.id, request.params.run_id, request.params.key);
        return reply.code(204).send();
      },
    });
  };
}
