// Liveness, readiness and the machine-readable API description.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';

export function systemRoutes(isStorageReachable: () => Promise<boolean>): FastifyPluginAsyncTypebox {
  return async function register(app) {
    const open = { access: { kind: 'open', limit: 'system' } } as const;

    app.get('/healthz', {
      config: open,
      schema: { tags: ['system'], summary: 'The process is up', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
      handler: async () => ({ status: 'ok' as const }),
    });

    app.get('/readyz', {
      config: open,
      schema: {
        tags: ['system'],
        summary: 'Storage is reachable',
        description: '503 while the database cannot be queried.',
        response: { 200: Type.Object({ status: Type.String(), storage: Type.String() }), 503: Type.Object({ status: Type.String(), storage: Type.String() }) },
      },
      handler: async (_request, reply) => {
        const ok = await isStorageReachable();
        return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', storage: ok ? 'ok' : 'unreachable' });
      },
    });

    app.get('/openapi.json', {
      config: open,
      schema: { hide: true },
      handler: async () => app.swagger(),
    });
  };
}
