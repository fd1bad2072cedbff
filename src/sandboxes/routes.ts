// HTTP surface of sandboxes that needs a runtime: create, destroy, exec (buffered and streaming), templates. Reading sandboxes is read-routes.ts.
import { PassThrough } from 'node:stream';
import { Utf8Chunks, type TextPiece } from '../core/utf8-chunks.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { SandboxRuntime } from '../runtime/runtime.js';
import { templateStatus } from '../runtime/templates/index.js';
import { ExecBody, ExecResult, SandboxCreated, SandboxParams, CreateSandboxBody } from './schemas.js';
import type { SandboxService } from './service.js';
import { sandboxCreatedView } from './views.js';
import { ErrorResponse } from '../core/error-body.js';
import { NoContent } from '../core/schemas.js';

const access = { access: { kind: 'key', area: 'sandboxes' } } as const;
/** Exec reaches the sandbox's processes and files: not for narrower scopes when the sandbox is confidential. */
const inside = { access: { kind: 'key', area: 'sandboxes', reaches: [{ kind: 'sandbox', from: 'params', field: 'id' }] } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 429: Err };

export function sandboxRoutes(service: SandboxService, dataDir: string, runtime: SandboxRuntime): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.get('/v1/templates', {
      config: access,
      schema: {
        tags: ['sandboxes'],
        summary: 'List templates and whether each is ready',
        description:
          'A template that is not ready says how to make it ready (`paddock templates build NAME`, or `paddock templates import NAME ARCHIVE` for bases that cannot be built on this server).',
        response: {
          200: Type.Array(
            Type.Object(
              { name: Type.String(), description: Type.String(), ready: Type.Boolean(), reason: Type.Optional(Type.String()), how_to_fix: Type.Optional(Type.String()) },
              { additionalProperties: true },
            ),
          ),
        },
      },
      handler: async () => templateStatus(dataDir),
    });

    app.post('/v1/sandboxes', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['sandboxes'],
        summary: 'Create a sandbox',
        description: `Starts an isolated sandbox (runtime: ${runtime.name} on this server) from a template, with its own copy-on-write root filesystem, CPU, memory, disk and process limits, network namespace and hostname (the sandbox id). Answers 201 once the sandbox is up. When the request has set-up steps (repo, packages, agents, init_script) the status is \`creating\` while they run in order, then \`running\` — or \`error\` with \`error\` naming the failed step. Poll GET /v1/sandboxes/{id}. The plan's concurrent sandbox limit (free 2, pro 10, team 50) answers 403. When the server keeps a warm pool (PADDOCK_WARM_POOL) and a pre-started sandbox of the template fits (network_mode full without allowlist, the default disk_gb; on gVisor also the default memory_mb), it is handed out with the requested cpus, memory_mb and env applied, and answers in milliseconds; its id was generated when the pool started it, so it sorts slightly earlier.`,
        body: CreateSandboxBody,
        response: { 201: SandboxCreated, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(sandboxCreatedView(await service.create(request.principal!, request.body))),
    });

    app.delete('/v1/sandboxes/:id', {
      config: access,
      schema: {
        tags: ['sandboxes'],
        summary: 'Destroy a sandbox',
        description: 'Kills every process and removes its filesystem, mounts, cgroups and network. The record stays with status `destroyed`. Idempotent.',
        params: SandboxParams,
        response: { 204: NoContent, ...errors },
      },
      handler: async (request, reply) => {
        await service.destroy(request.principal!.accountId, request.params.id);
        return reply.code(204).send();
      },
    });

    app.post('/v1/sandboxes/:id/exec', {
      config: { ...inside, idempotent: true },
      schema: {
        tags: ['sandboxes'],
        summary: 'Run a command',
        description:
          'Runs `/bin/sh -c command` in /workspace with the sandbox env (plus `env` given here). Always 200: a failing command has a non-zero exit_code and its stderr in `output`; a sandbox that is not running answers exit_code 1 with `error` set. Killed after `timeout` seconds (default and maximum 300) with exit_code 124. stdout and stderr are each capped at 1 MiB (`truncated`).',
        params: SandboxParams,
        body: ExecBody,
        response: { 200: ExecResult, ...errors },
      },
      handler: async (request) => service.exec(request.principal!.accountId, request.params.id, request.body),
    });

    app.post('/v1/sandboxes/:id/exec/stream', {
      config: inside,
      schema: {
        tags: ['sandboxes'],
        summary: 'Run a command, streaming its output',
        description:
          'Same as exec, answered as NDJSON (`application/x-ndjson`) while the command runs: `{"type":"stdout","data":"…"}` and `{"type":"stderr","data":"…"}` lines as output arrives (UTF-8 text), then one `{"type":"exit","exit_code":0,"timed_out":false,"truncated":false,"duration_ms":12}` line — or `{"type":"exit","exit_code":1,"error":"…"}` when the sandbox is not running.',
        params: SandboxParams,
        body: ExecBody,
      },
      handler: async (request, reply) => {
        const { accountId } = request.principal!;
        await service.get(accountId, request.params.id);
        const out = new PassThrough();
        const line = (value: object) => out.write(JSON.stringify(value) + '\n');
        const text = { stdout: new Utf8Chunks(), stderr: new Utf8Chunks() };
        const output = (type: 'stdout' | 'stderr', pieces: TextPiece[]) => pieces.forEach((piece) => line({ type, data: piece.text }));
        service
          .exec(accountId, request.params.id, request.body, {
            onStdout: (chunk) => output('stdout', text.stdout.push(chunk)),
            onStderr: (chunk) => output('stderr', text.stderr.push(chunk)),
          })
          .finally(() => {
            output('stdout', text.stdout.end());
            output('stderr', text.stderr.end());
          })
          .then(
            (result) =>
              line({
                type: 'exit',
                exit_code: result.exit_code,
                ...(result.error ? { error: result.error } : {}),
                timed_out: result.timed_out,
                truncated: result.truncated,
                duration_ms: result.duration_ms,
              }),
            () => line({ type: 'exit', exit_code: 1, error: 'the sandbox could not run the command' }),
          )
          .finally(() => out.end());
        return reply.type('application/x-ndjson').send(out);
      },
    });
  };
}
