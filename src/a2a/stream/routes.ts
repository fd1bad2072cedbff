// GET /v1/a2a/tasks/{taskId}/stream: a task's event log as server-sent events, replayed from where the
// client left off, then live until the task's last event. One connection per task.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../core/errors.js';
import type { TaskService } from '../contract.js';
import type { TaskSignals } from '../task-signals.js';
import { a2aErrors } from '../error-body.js';
import { readTaskEvents } from './event-reader.js';
import { resumeAfter } from './resume-point.js';
import type { StreamSlots } from './slots.js';
import { acceptsEventStream, eventFrame, HEARTBEAT_FRAME } from './sse.js';

export interface StreamOptions {
  tasks: TaskService;
  signals: TaskSignals;
  slots: StreamSlots;
  heartbeatMs: number;
  /** Longest wait before re-reading the log without a signal (events committed by another process). */
  pollMs: number;
}

const DESCRIPTION = (heartbeatMs: number) =>
  [
    "Server-sent events (`text/event-stream`) from the task's event log, oldest first: each frame has `id:` (the event's sequence in the log, 1, 2, …), `event:` (its kind) and one `data:` line of JSON with the spec's fields: `status` {status, message}, `progress` {percentage, current_step, message}, `message` {role, parts}, `artifact` {id, name, mime_type}, `complete` {status, output}, `error` {status, error}.",
    'What is stored is replayed first, then events are sent as they are committed. The stream ends after `complete` or `error`; a task that has already ended gets its log replayed and the stream ends.',
    `A heartbeat comment (\`: heartbeat\`) is sent every PADDOCK_A2A_STREAM_HEARTBEAT_MS (now ${heartbeatMs} ms).`,
    'Resuming: send `Last-Event-ID: <sequence>` (EventSource does on reconnect) or, without EventSource, `?last_event_id=<sequence>`; the header wins when both are sent. The stream then starts with the event after that sequence: none lost, none repeated, across server restarts too (the log is durable).',
    'One connection per task: while a stream of the task is open (on this server), another is refused with 409 `stream_already_open`; the slot frees as soon as the first connection closes.',
    'Send `Accept: text/event-stream` (or `*/*`, or no Accept): an Accept header that excludes it is refused with 406 `not_acceptable`. Errors before the stream starts (400, 404, 406, 409) are JSON.',
  ].join('\n\n');

export function taskStreamRoutes(options: StreamOptions) {
  return async function register(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('preClose', async () => options.slots.closeAll());

    app.get('/v1/a2a/tasks/:id/stream', {
      exposeHeadRoute: false,
      config: { access: { kind: 'key', area: 'a2a' } },
      schema: {
        tags: ['a2a'],
        summary: "Stream a task's events (SSE)",
        description: DESCRIPTION(options.heartbeatMs),
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        querystring: Type.Object(
          { last_event_id: Type.Optional(Type.String({ maxLength: 32, description: 'Resume after this sequence (for clients that cannot send Last-Event-ID).' })) },
          { additionalProperties: false },
        ),
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 32, description: 'Resume after this sequence (EventSource sends it when it reconnects).' })) }),
        response: {
          200: { description: '`text/event-stream`: `id:`, `event:` and `data:` lines per event, heartbeat comments.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...a2aErrors(400, 401, 403, 404, 406, 409, 429),
        },
      },
      handler: async (request, reply) => {
        if (!acceptsEventStream(request.headers.accept)) {
          throw new HttpError(406, `this endpoint answers text/event-stream; the Accept header (${JSON.stringify(request.headers.accept)}) excludes it`, 'not_acceptable');
        }
        const after = resumeAfter(request.headers['last-event-id'], request.query.last_event_id);
        const accountId = request.principal!.accountId;
        const taskId = request.params.id;
        await options.tasks.get(accountId, taskId);
        const controller = options.slots.take(taskId);
        stream(request, reply, options, { accountId, taskId, after, controller });
        return reply;
      },
    });
  };
}

function stream(request: FastifyRequest, reply: FastifyReply, options: StreamOptions, target: { accountId: string; taskId: string; after: number; controller: AbortController }) {
  const { controller } = target;
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  const end = () => controller.abort();
  res.on('close', end);
  // A client gone before the listener was added would otherwise hold the task's slot.
  if (res.destroyed || request.raw.destroyed) end();
  const heartbeat = setInterval(() => {
    if (!res.destroyed && !res.writableEnded) res.write(HEARTBEAT_FRAME);
  }, options.heartbeatMs);

  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        controller.signal.removeEventListener('abort', done);
        resolve();
      };
      res.once('drain', done);
      controller.signal.addEventListener('abort', done, { once: true });
    });

  void (async () => {
    try {
      const events = readTaskEvents(options.tasks, options.signals, {
        accountId: target.accountId,
        taskId: target.taskId,
        afterSequence: target.after,
        signal: controller.signal,
        pollMs: options.pollMs,
      });
      for await (const event of events) {
        if (!res.write(eventFrame(event))) await drained();
      }
    } catch (error) {
      if (!controller.signal.aborted) request.log.warn({ err: error, taskId: target.taskId }, 'task stream stopped by an error');
    } finally {
      clearInterval(heartbeat);
      res.off('close', end);
      options.slots.release(target.taskId, controller);
      if (!res.writableEnded) res.end();
    }
  })();
}
