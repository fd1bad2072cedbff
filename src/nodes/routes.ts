// HTTP surface of the node registry, for operators: the nodes, drain and undrain.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ErrorResponse } from '../core/error-body.js';
import { Node, NodeParams } from './schemas.js';
import type { NodeService } from './service.js';

const errors = { 401: ErrorResponse, 403: ErrorResponse, 429: ErrorResponse };
const access = { kind: 'key', area: 'operator' } as const;
const OPERATOR_ONLY = 'Operators only (accounts named by PADDOCK_OPERATORS, and the first account): others get 403 `operator_only`.';
const ID_IN_PATH =
  'The id is URL-encoded in the path: node ids contain `:` and `/` (the default is `<hostname>:<data dir>`). An unknown id is 404 `node_not_found`; a lost or stopped node is 409 `node_state_conflict`.';

export function nodeRoutes(service: NodeService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.get('/v1/admin/nodes', {
      config: { access },
      schema: {
        tags: ['nodes'],
        summary: 'The nodes of the cluster',
        description: `${OPERATOR_ONLY} Every Paddock server that registered in this database, sorted by id: its role, address, state, epoch, runtime, capacity, live sandboxes and templates at its last heartbeat. \`alive\` is false once its heartbeat is older than PADDOCK_NODE_DEAD_AFTER_SECONDS, or when it is lost or stopped.`,
        response: { 200: Type.Array(Node), ...errors },
      },
      handler: async (request) => service.list({ accountId: request.principal!.accountId }),
    });

    app.post('/v1/admin/nodes/:id/drain', {
      config: { access, idempotent: true },
      schema: {
        tags: ['nodes'],
        summary: 'Drain a node',
        description: `${OPERATOR_ONLY} The node keeps running its sandboxes but placement offers it no new ones; it stays draining across restarts until undrained. Draining a draining node changes nothing. ${ID_IN_PATH}`,
        params: NodeParams,
        response: { 200: Node, 404: ErrorResponse, 409: ErrorResponse, ...errors },
      },
      handler: async (request) => service.drain({ accountId: request.principal!.accountId }, request.params.id),
    });

    app.post('/v1/admin/nodes/:id/undrain', {
      config: { access, idempotent: true },
      schema: {
        tags: ['nodes'],
        summary: 'Undrain a node',
        description: `${OPERATOR_ONLY} The node takes new sandboxes again (\`active\`). Undraining an active node changes nothing. ${ID_IN_PATH}`,
        params: NodeParams,
        response: { 200: Node, 404: ErrorResponse, 409: ErrorResponse, ...errors },
      },
      handler: async (request) => service.undrain({ accountId: request.principal!.accountId }, request.params.id),
    });
  };
}
