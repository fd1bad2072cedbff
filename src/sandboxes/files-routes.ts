// HTTP surface of files and git inside a sandbox.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../core/errors.js';
import { FILE_WRITE_LIMIT_BYTES, listDirectory, readFile, writeFile } from './files.js';
import { gitDiff } from './git.js';
import { SandboxParams } from './schemas.js';
import { SandboxUnavailable, type SandboxService } from './service.js';
import { ErrorResponse } from '../core/error-body.js';
import { StringEnum } from '../core/schemas.js';

/** Files and git reach inside the sandbox: not for narrower scopes when it is confidential. */
const access = { access: { kind: 'key', area: 'sandboxes', reaches: [{ kind: 'sandbox', from: 'params', field: 'id' }] } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 409: Err, 429: Err };
const PathQuery = Type.Object({ path: Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute, or relative to /workspace.' }) }, { additionalProperties: false });

const RAW_BYTES_ONLY = 'send the file as raw bytes with Content-Type: application/octet-stream (an empty file: an empty body with that type); nothing was written';

function notRawBytes(contentType: string | undefined): HttpError<415> {
  const given = contentType ? `content-type ${contentType.split(';')[0].trim().slice(0, 100)} is not accepted` : 'the request has no content-type';
  return new HttpError(415, `${given}: ${RAW_BYTES_ONLY}`, 'unsupported_media_type');
}

/** Files and git need a running sandbox; unlike exec (which answers 200 by the spec) they answer 409. */
async function whenRunning<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SandboxUnavailable) throw new HttpError(409, `${error.message}; files and git need a running sandbox`, 'sandbox_not_running');
    throw error;
  }
}

export function fileRoutes(service: SandboxService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    // A file's content is raw bytes and nothing else. The JSON parser inherited from the app would hand the
    // handler an object (or nothing) and the write would silently replace the file with 0 bytes, so in
    // this plugin every other content type is refused before anything is written.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: FILE_WRITE_LIMIT_BYTES }, (_request, body, done) => done(null, body));
    app.addContentTypeParser('*', (request, _payload, done) => done(notRawBytes(request.headers['content-type'])));

    app.get('/v1/sandboxes/:id/files', {
      config: access,
      schema: {
        tags: ['files'],
        summary: 'List a directory',
        description:
          'Entries sorted by name. `mode` is the octal permission string. Paths resolve inside the sandbox (`..` and symlinks cannot leave it). 404 when the path does not exist, 400 when it is not a directory, 409 when the sandbox is not running.',
        params: SandboxParams,
        querystring: PathQuery,
        response: {
          200: Type.Array(
            Type.Object({
              name: Type.String(),
              path: Type.String(),
              type: StringEnum(['file', 'directory', 'symlink', 'other']),
              size: Type.Integer(),
              mode: Type.String(),
              modified_at: Type.String({ format: 'date-time' }),
            }),
          ),
          ...errors,
        },
      },
      handler: async (request) => whenRunning(() => listDirectory(service, request.principal!.accountId, request.params.id, request.query.path)),
    });

    app.get('/v1/sandboxes/:id/files/content', {
      config: access,
      schema: {
        tags: ['files'],
        summary: 'Read a file',
        description: 'The raw bytes as application/octet-stream. Files over 50 MiB answer 413 (read them in parts with exec).',
        params: SandboxParams,
        querystring: PathQuery,
        response: { ...errors, 413: Err },
      },
      handler: async (request, reply) => {
        const content = await whenRunning(() => readFile(service, request.principal!.accountId, request.params.id, request.query.path));
        return reply.type('application/octet-stream').send(content);
      },
    });

    app.put('/v1/sandboxes/:id/files/content', {
      config: access,
      bodyLimit: FILE_WRITE_LIMIT_BYTES,
      schema: {
        tags: ['files'],
        summary: 'Write a file',
        description:
          'Send the raw bytes with `Content-Type: application/octet-stream` (at most 50 MiB; larger → 413). Any other content type, JSON included, or no content type at all answers 415 and writes nothing: an existing file is never replaced by a body that is not its content. An empty file is an empty body with that type. Parent directories are created; an existing file is replaced. Answers `{path, size}`.',
        params: SandboxParams,
        querystring: PathQuery,
        response: { 200: Type.Object({ path: Type.String(), size: Type.Integer() }), ...errors, 413: Err, 415: Err },
      },
      handler: async (request) => {
        // A bodyless PUT without a content type reaches here without the parsers.
        if (!Buffer.isBuffer(request.body)) throw notRawBytes(request.headers['content-type']);
        const body = request.body;
        return whenRunning(() => writeFile(service, request.principal!.accountId, request.params.id, request.query.path, body));
      },
    });

    app.get('/v1/sandboxes/:id/git/diff', {
      config: access,
      schema: {
        tags: ['files'],
        summary: 'Diff of /workspace against HEAD',
        description: 'Unified diff including untracked files (as additions), and the changed files with their status (added, modified, deleted, renamed). 400 when /workspace is not a git repository.',
        params: SandboxParams,
        response: {
          200: Type.Object({ diff: Type.String(), files: Type.Array(Type.Object({ path: Type.String(), status: Type.String(), from: Type.Optional(Type.String()) })), truncated: Type.Boolean() }),
          ...errors,
        },
      },
      handler: async (request) => whenRunning(() => gitDiff(service, request.principal!.accountId, request.params.id)),
    });
  };
}
