// HTTP surface of background processes in a sandbox: start, list, get, output (a page, or followed as
// NDJSON or SSE), stdin and signals.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorResponse } from '../core/error-body.js';
import { NoContent } from '../core/schemas.js';
import { Utf8Chunks, type TextPiece } from '../core/utf8-chunks.js';
import type { TailEvent } from './agent-commands.js';
import { ListQuery, OutputPage, OutputQuery, Process, ProcessParams, SignalBody, StartBody, StdinBody } from './schemas.js';
import { SandboxParams } from '../sandboxes/schemas.js';
import type { ProcessService } from './service.js';
import { Type } from '@sinclair/typebox';

/** Processes reach inside the sandbox: not for narrower scopes when it is confidential (as exec). */
const inside = { access: { kind: 'key', area: 'sandboxes', reaches: [{ kind: 'sandbox', from: 'params', field: 'id' }] } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 409: Err, 429: Err };
/** A follower that stops reading is dropped past this much unsent output; it can resume from its offset. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export function processRoutes(service: ProcessService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    // Followers end with the server: an open follow would otherwise hold its connection (and close()) forever.
    const follows = new Set<AbortController>();
    app.addHook('onClose', async () => {
      for (const follow of follows) follow.abort();
    });
    app.post('/v1/sandboxes/:id/processes', {
      config: { ...inside, idempotent: true },
      schema: {
        tags: ['processes'],
        summary: 'Start a background process',
        description:
          'Runs `/bin/sh -c command` in the background (its own process group, in `cwd`, with the sandbox env plus `env`) and answers 201 at once, without waiting for it. Its output (stdout and stderr together, about the newest 1 MiB) is kept on the sandbox disk: read it with GET …/output. At most 64 running processes per sandbox (409 process_limit); the 256 newest process records are kept. Processes survive a server restart and pause/resume.',
        params: SandboxParams,
        body: StartBody,
        response: { 201: Process, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(await service.start(request.principal!.accountId, request.params.id, request.body)),
    });

    app.get('/v1/sandboxes/:id/processes', {
      config: inside,
      schema: {
        tags: ['processes'],
        summary: "List a sandbox's background processes",
        description: 'Newest first; filter by `status` and `tag`.',
        params: SandboxParams,
        querystring: ListQuery,
        response: { 200: Type.Object({ items: Type.Array(Process) }), ...errors },
      },
      handler: async (request) => ({ items: await service.list(request.principal!.accountId, request.params.id, request.query) }),
    });

    app.get('/v1/sandboxes/:id/processes/:pid', {
      config: inside,
      schema: { tags: ['processes'], summary: 'Get a background process', description: '404 process_not_found for an unknown id.', params: ProcessParams, response: { 200: Process, ...errors } },
      handler: async (request) => service.get(request.principal!.accountId, request.params.id, request.params.pid),
    });

    app.get('/v1/sandboxes/:id/processes/:pid/output', {
      config: inside,
      schema: {
        tags: ['processes'],
        summary: "Read or follow a background process's output",
        description:
          'Without `follow`: JSON `{chunks, next_offset, truncated, status, exit_code}` from byte `offset` (stdout and stderr together, in the order written); `truncated` when the offset had left the 1 MiB ring (chunks then start at the oldest byte kept). With `follow=true`: NDJSON lines `{"type":"stdout"|"stderr","offset":N,"data":"…"}` as output arrives, first `{"type":"truncated","offset":N}` when the offset had left the ring, last `{"type":"exit","exit_code":0,"signal":null}` once the process exited and everything was sent; with `Accept: text/event-stream` the same objects as SSE events (`event:` the type, `id:` the next offset). Any number of followers, any time, also after the exit.',
        params: ProcessParams,
        querystring: OutputQuery,
        response: { 200: OutputPage, ...errors },
      },
      handler: async (request, reply) => {
        const { id, pid } = request.params;
        const accountId = request.principal!.accountId;
        const offset = request.query.offset ?? 0;
        if (!request.query.follow) return service.output(accountId, id, pid, offset, request.query.wait_ms ?? 0);
        await service.get(accountId, id, pid);
        followOutput(request, reply, service, follows, { accountId, sandboxId: id, pid, offset });
        return reply;
      },
    });

    app.post('/v1/sandboxes/:id/processes/:pid/stdin', {
      config: { ...inside, idempotent: true },
      schema: {
        tags: ['processes'],
        summary: "Write to a background process's stdin",
        description:
          '204 once the data is in the process stdin pipe (or waiting for it to read). `eof: true` closes its stdin afterwards. 409 process_not_running when it exited, 409 process_stdin_closed after eof.',
        params: ProcessParams,
        body: StdinBody,
        response: { 204: NoContent, ...errors },
      },
      handler: async (request, reply) => {
        await service.sendStdin(request.principal!.accountId, request.params.id, request.params.pid, Buffer.from(request.body.data, 'utf8'), request.body.eof ?? false);
        return reply.code(204).send();
      },
    });

    app.post('/v1/sandboxes/:id/processes/:pid/signal', {
      config: { ...inside, idempotent: true },
      schema: {
        tags: ['processes'],
        summary: 'Signal a background process',
        description: "Sends the signal to the process's whole process group and answers 202 with the process (usually still running: the exit follows). 409 process_not_running when it exited.",
        params: ProcessParams,
        body: SignalBody,
        response: { 202: Process, ...errors },
      },
      handler: async (request, reply) => reply.code(202).send(await service.signal(request.principal!.accountId, request.params.id, request.params.pid, request.body.signal)),
    });
  };
}

function pieceOf(piece: TextPiece): { offset: number; data: string } {
  return { offset: piece.offset, data: piece.text };
}

function wireEvent(event: TailEvent): object | null {
  if (event.type === 'truncated') return { type: 'truncated', offset: event.offset };
  if (event.type === 'exit') return { type: 'exit', exit_code: event.exit_code, signal: event.signal };
  return null;
}

function nextOffset(event: TailEvent): number {
  return event.type === 'stdout' || event.type === 'stderr' ? event.offset + event.data.length : event.offset;
}

function followOutput(
  request: FastifyRequest,
  reply: FastifyReply,
  service: ProcessService,
  follows: Set<AbortController>,
  target: { accountId: string; sandboxId: string; pid: string; offset: number },
) {
  const sse = (request.headers.accept ?? '').includes('text/event-stream');
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': sse ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  const gone = new AbortController();
  follows.add(gone);
  const end = () => gone.abort();
  res.on('close', end);
  if (res.destroyed || request.raw.destroyed) end();
  const write = (type: string, wire: object, resumeAt: number) => {
    if (res.destroyed) return;
    const json = JSON.stringify(wire);
    res.write(sse ? `event: ${type}\ndata: ${json}\nid: ${resumeAt}\n\n` : `${json}\n`);
    if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
  };
  // Per stream: a character cut between two pieces of output goes out whole, with the next piece.
  const text = { stdout: new Utf8Chunks(), stderr: new Utf8Chunks() };
  const flush = () => {
    for (const type of ['stdout', 'stderr'] as const) for (const piece of text[type].end()) write(type, { type, ...pieceOf(piece) }, text[type].resumeOffset);
  };
  const send = (event: TailEvent) => {
    if (event.type === 'stdout' || event.type === 'stderr') {
      const decoder = text[event.type];
      for (const piece of decoder.push(event.data, event.offset)) write(event.type, { type: event.type, ...pieceOf(piece) }, decoder.resumeOffset);
      return;
    }
    flush();
    const wire = wireEvent(event);
    if (wire) write(event.type, wire, nextOffset(event));
  };
  service
    .follow(target.accountId, target.sandboxId, target.pid, target.offset, gone.signal, send)
    .catch((error) => {
      if (!gone.signal.aborted) request.log.warn({ err: error, process_id: target.pid }, 'process output follow stopped by an error');
    })
    .finally(() => {
      follows.delete(gone);
      res.off('close', end);
      if (!res.destroyed) res.end();
    });
}
