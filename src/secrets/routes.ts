// HTTP surface of account secrets: PUT to set (create or replace), GET metadata, list, DELETE.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { PutSecretBody, Secret, SecretParams } from './schemas.js';
import type { SecretService } from './service.js';
import { ErrorResponse } from '../core/error-body.js';
import { NoContent } from '../core/schemas.js';

const access = { access: { kind: 'key', area: 'account' } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 429: Err };

export function secretRoutes(service: SecretService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.put('/v1/secrets/:name', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['secrets'],
        summary: 'Set a secret',
        description:
          "Creates (201) or replaces (200) an account secret. Name it in a sandbox's `secrets` to have it injected as an environment variable of that name. The value is encrypted at rest with the server's key (PADDOCK_SECRETS_KEY), never returned by any endpoint, never logged, and replaced by `***` in recorded command output (sessions; the exact value only, not an encoding of it). Only `full`-scope keys may name secrets in a sandbox or reach inside a sandbox that holds them. Up to 200 secrets per account.",
        params: SecretParams,
        body: PutSecretBody,
        response: { 200: Secret, 201: Secret, ...errors },
      },
      handler: async (request, reply) => {
        const { row, created } = await service.put(request.principal!.accountId, request.params.name, request.body.value);
        return reply.code(created ? 201 : 200).send(row);
      },
    });

    app.get('/v1/secrets', {
      config: access,
      schema: { tags: ['secrets'], summary: 'List secrets', description: 'Names and times only, by name.', response: { 200: Type.Array(Secret), ...errors } },
      handler: async (request) => service.list(request.principal!.accountId),
    });

    app.get('/v1/secrets/:name', {
      config: access,
      schema: { tags: ['secrets'], summary: "Get a secret's metadata", description: 'Never the value.', params: SecretParams, response: { 200: Secret, ...errors } },
      handler: async (request) => service.get(request.principal!.accountId, request.params.name),
    });

    app.delete('/v1/secrets/:name', {
      config: access,
      schema: {
        tags: ['secrets'],
        summary: 'Delete a secret',
        description: 'Sandboxes already running keep the value they were started with.',
        params: SecretParams,
        response: { 204: NoContent, ...errors },
      },
      handler: async (request, reply) => {
        await service.delete(request.principal!.accountId, request.params.name);
        return reply.code(204).send();
      },
    });
  };
}
