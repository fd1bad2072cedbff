// HTTP surface of pipeline definitions and versions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CreatePipelineBody, Page, Pipeline, PipelineListItem, PipelineParams, PipelineVersion, UpdatePipelineBody, VersionParams } from './schemas.js';
import type { PipelineService } from './service.js';
import { ErrorResponse } from '../core/error-body.js';
import { NoContent, StringEnum } from '../core/schemas.js';
import { PIPELINE_STATUSES } from './engine/statuses.js';

export const pipelineAccess = { access: { kind: 'key', area: 'pipelines' } } as const;
const Err = ErrorResponse;
export const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 409: Err, 429: Err };

export function pipelineRoutes(service: PipelineService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.post('/v1/pipelines', {
      config: { ...pipelineAccess, idempotent: true },
      schema: {
        tags: ['pipelines'],
        summary: 'Create a pipeline',
        description:
          'Saves version 1 of a DAG-shaped definition. 400 names the problem: duplicate stage names, unknown depends_on names, a cycle (named, e.g. `a → b → a`), bad durations or retry fields, a CEL `condition.if` or gate `expression` that does not parse or type-check, a missing or mistyped type-specific config field. 409 when the account already has a pipeline of that name.',
        body: CreatePipelineBody,
        response: { 201: Pipeline, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(await service.create(request.principal!.accountId, request.body)),
    });

    app.get('/v1/pipelines', {
      config: pipelineAccess,
      schema: {
        tags: ['pipelines'],
        summary: 'List pipelines',
        description: 'Newest first; archived ones included unless `status=active`.',
        querystring: Type.Object({ ...Page.properties, status: Type.Optional(StringEnum(PIPELINE_STATUSES)) }),
        response: { 200: Type.Array(PipelineListItem), ...errors },
      },
      handler: async (request) => service.list(request.principal!.accountId, { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0, status: request.query.status }),
    });

    app.get('/v1/pipelines/:id', {
      config: pipelineAccess,
      schema: { tags: ['pipelines'], summary: 'Get a pipeline', description: 'The full definition of its current version.', params: PipelineParams, response: { 200: Pipeline, ...errors } },
      handler: async (request) => service.get(request.principal!.accountId, request.params.id),
    });

    app.put('/v1/pipelines/:id', {
      config: { ...pipelineAccess, idempotent: true },
      schema: {
        tags: ['pipelines'],
        summary: 'Update a pipeline (new version)',
        description:
          'Not shown in the spec. Definitions are immutable: this saves the body as version n+1 (validated as on create) and answers the pipeline at its new version. Runs already started keep the version they started with. 409 for an archived pipeline, a changed name, or a concurrent update.',
        params: PipelineParams,
        body: UpdatePipelineBody,
        response: { 200: Pipeline, ...errors },
      },
      handler: async (request) => service.update(request.principal!.accountId, request.params.id, request.body),
    });

    app.delete('/v1/pipelines/:id', {
      config: pipelineAccess,
      schema: {
        tags: ['pipelines'],
        summary: 'Archive a pipeline',
        description: 'Soft delete: status becomes `archived`, runs are kept and stay readable; starting a run answers 409. Repeating it answers 204.',
        params: PipelineParams,
        response: { 204: NoContent, ...errors },
      },
      handler: async (request, reply) => {
        await service.archive(request.principal!.accountId, request.params.id);
        return reply.code(204).send();
      },
    });

    app.get('/v1/pipelines/:id/versions', {
      config: pipelineAccess,
      schema: {
        tags: ['pipelines'],
        summary: 'List versions of a pipeline',
        description: 'Newest first; each is the full, immutable definition.',
        params: PipelineParams,
        response: { 200: Type.Array(PipelineVersion), ...errors },
      },
      handler: async (request) => service.versions(request.principal!.accountId, request.params.id),
    });

    app.get('/v1/pipelines/:id/versions/:version', {
      config: pipelineAccess,
      schema: { tags: ['pipelines'], summary: 'Get one version of a pipeline', params: VersionParams, response: { 200: PipelineVersion, ...errors } },
      handler: async (request) => service.version(request.principal!.accountId, request.params.id, request.params.version),
    });
  };
}
