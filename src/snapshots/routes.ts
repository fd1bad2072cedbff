// HTTP surface of snapshots: create and list under a sandbox, get, delete, signed download, restore.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { SandboxParams } from '../sandboxes/schemas.js';
import { CreateSnapshotBody, DownloadLink, DownloadQuery, RestoreResult, RestoreSnapshotBody, Snapshot, SnapshotParams } from './schemas.js';
import type { SnapshotService } from './service.js';
import { snapshotView } from './views.js';
import { ErrorResponse } from '../core/error-body.js';
import { NoContent } from '../core/schemas.js';

const access = { access: { kind: 'key', area: 'snapshots' } } as const;
/** A confidential sandbox's snapshot may hold its secret values in files: its content is not for narrower scopes. */
const content = { access: { kind: 'key', area: 'snapshots', reaches: [{ kind: 'snapshot', from: 'params', field: 'id' }] } } as const;
const restore = {
  access: {
    kind: 'key',
    area: 'snapshots',
    reaches: [
      { kind: 'snapshot', from: 'params', field: 'id' },
      { kind: 'sandbox', from: 'body', field: 'sandbox_id' },
    ],
  },
} as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 409: Err, 429: Err };

const unavailable = { 503: Err };
/** Scale-out: where the archive is, and what happens when its node is away. */
const HELD =
  "In a cluster the archive stays on the disk of the node that took it (the sandbox's node), and any node passes this request on to that one; while that node is stopped or declared lost the answer is 503 `snapshot_unavailable` with `Retry-After` (the record itself, GET /v1/snapshots/{id}, still reads), until it is back.";

const LIMITS = 'Limits: 20 snapshots per sandbox, 2 GB per snapshot (compressed), 10 GB per account (operators can change them); past one the answer is 403 naming it.';

export function snapshotRoutes(service: SnapshotService, publicUrl: string | null): FastifyPluginAsyncTypebox {
  const baseUrl = (request: FastifyRequest) => publicUrl ?? `${request.protocol}://${request.host}`;

  return async function register(app) {
    app.post('/v1/sandboxes/:id/snapshots', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['snapshots'],
        summary: "Snapshot a sandbox's filesystem",
        description: `A point-in-time copy of everything the sandbox changed relative to its template (the overlay's upper layer, deletions included). Consistent: the sandbox is frozen for the moment its files are copied (about a second per 100 MB) and then runs on; a paused sandbox stays paused. Memory and running processes are not part of it. Answers 201 with status \`completed\` once stored. Snapshots outlive their sandbox. ${LIMITS} 409 when the sandbox is neither running nor paused.`,
        params: SandboxParams,
        body: CreateSnapshotBody,
        response: { 201: Snapshot, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(snapshotView(await service.create(request.principal!.accountId, request.params.id, request.body.name))),
    });

    app.get('/v1/sandboxes/:id/snapshots', {
      config: access,
      schema: {
        tags: ['snapshots'],
        summary: "List a sandbox's snapshots",
        description: 'Newest first, also after the sandbox was destroyed.',
        params: SandboxParams,
        response: { 200: Type.Array(Snapshot), ...errors },
      },
      handler: async (request) => (await service.list(request.principal!.accountId, request.params.id)).map(snapshotView),
    });

    app.get('/v1/snapshots/:id', {
      config: access,
      schema: {
        tags: ['snapshots'],
        summary: 'Get a snapshot',
        description: 'The record only: in a cluster any node answers it, also while the node holding the archive is stopped or declared lost.',
        params: SnapshotParams,
        response: { 200: Snapshot, ...errors },
      },
      handler: async (request) => snapshotView(await service.get(request.principal!.accountId, request.params.id)),
    });

    app.delete('/v1/snapshots/:id', {
      config: access,
      schema: {
        tags: ['snapshots'],
        summary: 'Delete a snapshot',
        description: `Removes the archive; download links stop working. 409 while an automatic snapshot is still being taken. ${HELD}`,
        params: SnapshotParams,
        response: { 204: NoContent, ...errors, ...unavailable },
      },
      handler: async (request, reply) => {
        await service.delete(request.principal!.accountId, request.params.id);
        return reply.code(204).send();
      },
    });

    app.get('/v1/snapshots/:id/download', {
      config: content,
      schema: {
        tags: ['snapshots'],
        summary: 'Get a download link',
        description: `A pre-signed URL served by this server that needs no API key, valid for 15 minutes by default (PADDOCK_SNAPSHOT_URL_TTL_SECONDS). It streams the snapshot as a \`.tar.gz\`: the files the sandbox added or changed, with paths relative to the sandbox root (workspace files under \`workspace/\`), owners numeric; overlay whiteouts (character devices 0:0) mark files the sandbox deleted from its template. A tampered or expired link answers 403. ${HELD}`,
        params: SnapshotParams,
        response: { 200: DownloadLink, ...errors, ...unavailable },
      },
      handler: async (request) => service.downloadLink(request.principal!.accountId, request.params.id, baseUrl(request)),
    });

    app.get('/v1/snapshot-downloads/:id', {
      config: { access: { kind: 'open', limit: 'open' } },
      schema: {
        tags: ['snapshots'],
        summary: 'Download a snapshot (pre-signed link)',
        description: `Open: the signature in the link is the credential. \`application/gzip\`. 403 when the signature does not match or the link has expired; 404 when the snapshot was deleted. ${HELD}`,
        params: SnapshotParams,
        querystring: DownloadQuery,
      },
      handler: async (request, reply) => {
        const { row, stream } = await service.openDownload(request.params.id, request.query.expires, request.query.signature);
        const filename = `${row.name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || row.id}.tar.gz`;
        return reply
          .type('application/gzip')
          .header('content-length', String(row.size_bytes))
          .header('content-disposition', `attachment; filename="${filename}"`)
          .header('cache-control', 'private, no-store')
          .send(stream);
      },
    });

    app.post('/v1/snapshots/:id/restore', {
      config: { ...restore, idempotent: true },
      schema: {
        tags: ['snapshots'],
        summary: 'Restore a snapshot into a running sandbox',
        description:
          "Overwrites the filesystem of `sandbox_id` (a running sandbox of the same account and template — the snapshot's own sandbox or another) with the template plus the snapshot's changes: files written since the snapshot are gone, files deleted since are back. Running processes do not survive: every process in the sandbox is stopped, the files are swapped, and the sandbox starts again with the same id, address, network rules and env (open terminals close; background servers must be started again). The status is `restoring` meanwhile (exec answers exit_code 1 with `error`), then `running`. 409 when the sandbox is not running (a paused one must be resumed first) or the snapshot is not completed; 400 for another template. In a cluster the sandbox may run on any worker: the node holding the snapshot's archive (the node of the snapshot's own sandbox) streams it to the sandbox's node, which swaps the files; when that node cannot be reached the answer is 502 `node_unreachable` and the sandbox is left as it was. " +
          HELD,
        params: SnapshotParams,
        body: RestoreSnapshotBody,
        response: { 200: RestoreResult, ...errors, 502: Err, ...unavailable },
      },
      handler: async (request) => service.restore(request.principal!.accountId, request.params.id, request.body.sandbox_id),
    });
  };
}
