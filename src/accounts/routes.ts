// HTTP surface of accounts: signup and login (open), the account, and its API keys.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ErrorResponse } from '../core/error-body.js';
import type { AccountService } from './service.js';
import { Account, ApiKey, CreateKeyBody, CreatedKey, KeyParams, LoginBody, LoginResponse, SignupBody, SignupResponse } from './schemas.js';
import { NoContent } from '../core/schemas.js';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 429: ErrorResponse };

export function accountRoutes(service: AccountService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.addSchema(Account);
    app.addSchema(ApiKey);

    app.post('/signup', {
      config: { access: { kind: 'open', limit: 'open' } },
      schema: {
        tags: ['accounts'],
        summary: 'Create an account',
        description: 'Open. Returns the account and its first full-scope API key, shown once. An email already registered (in any letter case) answers 409.',
        body: SignupBody,
        response: { 201: SignupResponse, 409: ErrorResponse, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(await service.signup(request.body)),
    });

    app.post('/login', {
      config: { access: { kind: 'open', limit: 'open' } },
      schema: {
        tags: ['accounts'],
        summary: 'Log in to the dashboard',
        description:
          'Open. Wrong email or password both answer 401 with the same message. After repeated failures for one email, further attempts answer 429 with Retry-After until the window passes.',
        body: LoginBody,
        response: { 200: LoginResponse, ...errors },
      },
      handler: async (request) => service.login(request.body),
    });

    app.get('/v1/account', {
      config: { access: { kind: 'key', area: 'account' } },
      schema: { tags: ['accounts'], summary: 'The authenticated account', response: { 200: Type.Ref(Account), ...errors } },
      handler: async (request) => service.getAccount(request.principal!.accountId),
    });

    app.get('/v1/account/keys', {
      config: { access: { kind: 'key', area: 'account' } },
      schema: { tags: ['accounts'], summary: 'List active API keys', description: 'Revoked keys are not listed; key values never are.', response: { 200: Type.Array(Type.Ref(ApiKey)), ...errors } },
      handler: async (request) => service.listKeys(request.principal!.accountId),
    });

    app.post('/v1/account/keys', {
      config: { access: { kind: 'key', area: 'account' }, idempotent: true },
      schema: {
        tags: ['accounts'],
        summary: 'Create an API key',
        description: 'The value (`svc_sk_` + 43 base62 characters) is in `key`, shown once; only its SHA-256 digest is stored. A credential cannot create a key of a scope it does not contain (403).',
        body: CreateKeyBody,
        response: { 201: CreatedKey, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(await service.createKey(request.principal!, request.body)),
    });

    app.delete('/v1/account/keys/:id', {
      config: { access: { kind: 'key', area: 'account' } },
      schema: { tags: ['accounts'], summary: 'Revoke an API key', params: KeyParams, response: { 204: NoContent, 404: ErrorResponse, ...errors } },
      handler: async (request, reply) => {
        await service.revokeKey(request.principal!.accountId, request.params.id);
        return reply.code(204).send();
      },
    });
  };
}
