// A2A's HTTP+JSON binding (v1.0) below an agent's endpoint, at the paths the SDK's RestTransport uses:
// POST message:send / message:stream, GET tasks, GET tasks/{id}, POST tasks/{id}:cancel,
// GET|POST tasks/{id}:subscribe, and tasks/{id}/pushNotificationConfigs[/{configId}]. Bodies are the
// protocol's proto JSON, decoded and encoded with the SDK's message types; errors are its
// google.rpc.Status bodies.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  taskStateFromJSON,
  type AgentCard,
} from '@a2a-js/sdk';
import { ExtendedAgentCardNotConfiguredError, RequestMalformedError, restStatusFor, toRestErrorBody } from '@a2a-js/sdk/errors';
import { validateVersion, type ServerCallContext } from '@a2a-js/sdk/server';
import type { AgentRequestHandler } from './request-handler.js';
import { sendSse } from './sse.js';

type Params = { agentId: string; ref: string; taskId: string; configId: string };
type Request = FastifyRequest<{ Params: Params; Body: string | undefined; Querystring: Record<string, string | undefined> }>;

interface RestBindingOptions {
  handlerFor(request: FastifyRequest<{ Params: { agentId: string } }>, reply: FastifyReply): Promise<{ handler: AgentRequestHandler; card: AgentCard; context: ServerCallContext }>;
  tags: string[];
  access: { kind: 'key'; area: 'a2a' };
}

const A2A_JSON = 'application/a2a+json';

function bodyOf(request: Request): Record<string, unknown> {
  if (request.body === undefined || request.body.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(request.body);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch {
    throw new RequestMalformedError('the request body is not a JSON object');
  }
}

function nonNegativeInteger(value: string | undefined, name: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > max) throw new RequestMalformedError(`${name} must be an integer from 0 to ${max}`);
  return parsed;
}

export function restBindingRoutes(options: RestBindingOptions) {
  const config = { access: options.access, a2aBinding: 'rest' as const };
  const schema = (summary: string, description: string) => ({ tags: options.tags, summary, description });

  /** Runs one call: the handler with a checked version, then the answer (JSON, 204, or SSE) or the SDK's error body. */
  function route(run: (handler: AgentRequestHandler, request: Request, context: ServerCallContext, reply: FastifyReply) => Promise<unknown>) {
    return async (request: Request, reply: FastifyReply) => {
      const { handler, card, context } = await options.handlerFor(request, reply);
      reply.type(A2A_JSON);
      try {
        validateVersion(context.requestedVersion, card, 'HTTP+JSON');
        const answer = await run(handler, request, context, reply);
        if (reply.sent || answer === reply) return reply;
        return reply.send(JSON.stringify(answer));
      } catch (error) {
        if (reply.sent) return;
        const status = restStatusFor(error);
        if (status >= 500) request.log.error({ err: error }, 'a2a request failed');
        return reply.code(status).send(JSON.stringify(toRestErrorBody(error, status)));
      }
    };
  }

  function stream(reply: FastifyReply, events: AsyncGenerator<StreamResponse, void, undefined>) {
    return sendSse(
      reply,
      events,
      (event) => StreamResponse.toJSON(event),
      (error) => toRestErrorBody(error, restStatusFor(error)),
      (error) => reply.code(restStatusFor(error)).send(JSON.stringify(toRestErrorBody(error, restStatusFor(error)))),
    );
  }

  function messageRequest(request: Request): SendMessageRequest {
    const params = SendMessageRequest.fromJSON(bodyOf(request));
    if (!params.message) throw new RequestMalformedError('message is required');
    if (!params.message.messageId) throw new RequestMalformedError('message.messageId is required');
    return params;
  }

  /** `{id}`, `{id}:cancel` or `{id}:subscribe`. */
  function taskRef(ref: string): { taskId: string; action: '' | 'cancel' | 'subscribe' } {
    const colon = ref.lastIndexOf(':');
    const action = colon < 0 ? '' : ref.slice(colon + 1);
    if (action !== '' && action !== 'cancel' && action !== 'subscribe') throw new RequestMalformedError(`unknown task action :${action} (cancel or subscribe)`);
    return { taskId: colon < 0 ? ref : ref.slice(0, colon), action };
  }

  return async function register(app: FastifyInstance) {
    const base = '/a2a/:agentId';

    app.post(`${base}/message::send`, {
      config,
      schema: schema(
        'A2A SendMessage (HTTP+JSON)',
        'Body: `SendMessageRequest` proto JSON. Starts a task (or answers the one `message.taskId` names) and answers `{task}` once it ends or needs input (or at once with `configuration.returnImmediately`).',
      ),
      handler: route(async (handler, request, context) => SendMessageResponse.toJSON({ payload: { $case: 'task', value: (await handler.sendMessage(messageRequest(request), context)) as Task } })),
    });

    app.post(`${base}/message::stream`, {
      config,
      schema: schema(
        'A2A SendStreamingMessage (HTTP+JSON)',
        'As message:send, answered as server-sent events of `StreamResponse`: the task, then its status and artifact updates until it ends or needs input.',
      ),
      handler: route(async (handler, request, context, reply) => stream(reply, handler.sendMessageStream(messageRequest(request), context))),
    });

    app.get(`${base}/tasks`, {
      config,
      schema: schema(
        'A2A ListTasks (HTTP+JSON)',
        "The agent's tasks, newest first: `contextId`, `status` (TASK_STATE_…), `pageSize` (1-100, default 50), `pageToken`, `historyLength`, `includeArtifacts`.",
      ),
      handler: route(async (handler, request) => {
        const query = request.query;
        const answer = await handler.listTasks({
          tenant: '',
          contextId: query.contextId ?? '',
          status: query.status ? taskStateFromJSON(Number.isNaN(Number(query.status)) ? query.status : Number(query.status)) : 0,
          pageSize: nonNegativeInteger(query.pageSize, 'pageSize', 100),
          pageToken: query.pageToken ?? '',
          historyLength: nonNegativeInteger(query.historyLength, 'historyLength'),
          statusTimestampAfter: undefined,
          includeArtifacts: query.includeArtifacts === 'true',
        });
        return ListTasksResponse.toJSON(answer);
      }),
    });

    app.get(`${base}/tasks/:ref`, {
      config,
      schema: schema(
        'A2A GetTask / SubscribeToTask (HTTP+JSON)',
        '`tasks/{id}` answers the task (`historyLength` optional); `tasks/{id}:subscribe` streams its updates from now on (or after `Last-Event-ID`) as server-sent events.',
      ),
      handler: route(async (handler, request, context, reply) => {
        const { taskId, action } = taskRef(request.params.ref);
        if (action === 'subscribe') return stream(reply, handler.resubscribe({ tenant: '', id: taskId }, context));
        if (action === 'cancel') throw new RequestMalformedError('cancel with POST tasks/{id}:cancel');
        return Task.toJSON(await handler.getTask({ tenant: '', id: taskId, historyLength: nonNegativeInteger(request.query.historyLength, 'historyLength') }));
      }),
    });

    app.post(`${base}/tasks/:ref`, {
      config,
      schema: schema('A2A CancelTask / SubscribeToTask (HTTP+JSON)', '`tasks/{id}:cancel` cancels the task (and its run) and answers it; `tasks/{id}:subscribe` as with GET.'),
      handler: route(async (handler, request, context, reply) => {
        const { taskId, action } = taskRef(request.params.ref);
        if (action === 'subscribe') return stream(reply, handler.resubscribe({ tenant: '', id: taskId }, context));
        if (action !== 'cancel') throw new RequestMalformedError('POST tasks/{id}:cancel or tasks/{id}:subscribe');
        const body = bodyOf(request);
        return Task.toJSON(await handler.cancelTask({ tenant: '', id: taskId, metadata: (body.metadata as Record<string, unknown> | undefined) ?? {} }));
      }),
    });

    app.post(`${base}/tasks/:taskId/pushNotificationConfigs`, {
      config,
      schema: schema(
        'A2A CreateTaskPushNotificationConfig (HTTP+JSON)',
        'Body: `TaskPushNotificationConfig` proto JSON (`url`, optional `token`, `authentication`). The URL must pass the SSRF guard. Answers 201 with the config and its id.',
      ),
      handler: route(async (handler, request, _context, reply) => {
        const params = TaskPushNotificationConfig.fromJSON({ ...bodyOf(request), taskId: request.params.taskId });
        reply.code(201);
        return TaskPushNotificationConfig.toJSON(await handler.createTaskPushNotificationConfig(params));
      }),
    });

    app.get(`${base}/tasks/:taskId/pushNotificationConfigs`, {
      config,
      schema: schema('A2A ListTaskPushNotificationConfigs (HTTP+JSON)', "The task's push-notification configs."),
      handler: route(async (handler, request) =>
        ListTaskPushNotificationConfigsResponse.toJSON(await handler.listTaskPushNotificationConfigs({ tenant: '', taskId: request.params.taskId, pageSize: 0, pageToken: '' })),
      ),
    });

    app.get(`${base}/tasks/:taskId/pushNotificationConfigs/:configId`, {
      config,
      schema: schema('A2A GetTaskPushNotificationConfig (HTTP+JSON)', 'One push-notification config of the task.'),
      handler: route(async (handler, request) =>
        TaskPushNotificationConfig.toJSON(await handler.getTaskPushNotificationConfig({ tenant: '', taskId: request.params.taskId, id: request.params.configId })),
      ),
    });

    app.delete(`${base}/tasks/:taskId/pushNotificationConfigs/:configId`, {
      config,
      schema: schema('A2A DeleteTaskPushNotificationConfig (HTTP+JSON)', 'Deletes one push-notification config of the task; 204.'),
      handler: route(async (handler, request, _context, reply) => {
        await handler.deleteTaskPushNotificationConfig({ tenant: '', taskId: request.params.taskId, id: request.params.configId });
        return reply.code(204).send();
      }),
    });

    app.get(`${base}/extendedAgentCard`, {
      config,
      schema: schema('A2A GetExtendedAgentCard (HTTP+JSON)', 'Not offered: the public card is the whole card.'),
      handler: route(async () => {
        throw new ExtendedAgentCardNotConfiguredError();
      }),
    });
  };
}
