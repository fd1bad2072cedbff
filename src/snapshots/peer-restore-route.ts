// The sandbox's side of a restore across nodes (peer-restore.ts): the archive arrives streamed in a call
// another node of the cluster signed (src/core/node-calls.ts), and the files of the sandbox, which runs
// here, are swapped as a local restore swaps them. Not part of the public API (hidden from the OpenAPI
// document): anything but a signed node call answers 404, as for a route that does not exist.
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../core/errors.js';
import { isNodeCall } from '../core/node-calls.js';
import { PEER_RESTORE_PATH } from './peer-restore.js';
import type { SnapshotService } from './service.js';

const Query = Type.Object({
  account_id: Type.String({ minLength: 1, maxLength: 64 }),
  snapshot_id: Type.String({ minLength: 1, maxLength: 64 }),
  confidential: Type.Union([Type.Literal('0'), Type.Literal('1')]),
});

export function peerRestoreRoute(service: SnapshotService, clusterSecret: Buffer | null): FastifyPluginAsyncTypebox {
  return async function register(app) {
    // The archive is streamed to disk as it arrives (up to the 2 GB of a snapshot), never held in memory.
    // The stream is kept apart rather than made the body: hooks that look into bodies would walk it.
    const archives = new WeakMap<object, Readable>();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (request, payload, done) => {
      archives.set(request, payload);
      done(null, undefined);
    });

    app.put(`${PEER_RESTORE_PATH}/:id`, {
      config: { access: { kind: 'open', limit: 'system' } },
      schema: { hide: true, params: Type.Object({ id: Type.String({ maxLength: 64 }) }), querystring: Query },
      // Before the query is validated or the body read: to anyone else the route does not exist.
      onRequest: async (request) => {
        if (!isNodeCall(clusterSecret, request.method, request.url, request.headers)) {
          throw new HttpError(404, `no route for ${request.method} ${request.url.split('?')[0].slice(0, 200)}`, 'not_found');
        }
      },
      handler: async (request) => {
        const archive = archives.get(request);
        if (!archive) throw new HttpError(400, 'the archive is missing: send it as the request body', 'invalid_request');
        const { account_id: accountId, snapshot_id: snapshotId, confidential } = request.query;
        await service.restoreFromPeer({ accountId, sandboxId: request.params.id, snapshotId, confidential: confidential === '1', archive });
        return { sandbox_id: request.params.id };
      },
    });
  };
}
