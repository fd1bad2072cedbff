// HTTP surface of tasks: create (on an agent), read (60 per minute per task), list, messages, cancel,
// the event log and artifacts. Rules shared by all of them: TASK_RULES (schemas.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { a2aErrors } from '../error-body.js';
import { POLLS_PER_MINUTE, rateHeaders } from './limits.js';
import { checkParts } from './parts.js';
import {
  AgentTaskParams,
  ArtifactParams,
  CancelBody,
  CancelResult,
  CreateTaskBody,
  DEFAULT_TASK_PAGE,
  EventsQuery,
  MAX_TASK_PAGE,
  Message,
  MessageBody,
  Task,
  TASK_RULES,
  TaskEventSchema,
  TaskListQuery,
  TaskParams,
} from './schemas.js';
import type { Tasks } from './service.js';

// Only full-scope keys reach area a2a: a task runs the account's pipelines.
const access = { access: { kind: 'key', area: 'a2a' } } as const;

export function taskRoutes(tasks: Tasks): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(Task);
    const TaskRef = Type.Ref(Task);

    app.post('/v1/a2a/agents/:agentId/tasks', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['a2a'],
        summary: 'Delegate a task to an agent',
        description:
          `Answers 201 with the task, status \`pending\`, its run created in the same transaction. 404 \`agent_not_found\`; 403 \`agent_disabled\`; 400 \`skill_not_found\` or \`invalid_input\` (\`details.errors\`); 429 \`rate_limited\` beyond the agent's \`rate_limit_rpm\` tasks per minute (X-RateLimit-Limit/Remaining/Reset then describe the agent's limit, as they do on a 201); ` +
          `402 \`budget_exceeded\` when the agent has a \`max_cost_per_task\` and this account's unfinished tasks of the agent have together already cost that much (a task's own cost is stopped at that limit, so a new one could not fit beside them). 404 \`not_found\` / 409 \`conflict\` when the agent's pipeline is gone or archived. ${TASK_RULES}`,
        params: AgentTaskParams,
        body: CreateTaskBody,
        response: { 201: TaskRef, ...a2aErrors(400, 401, 402, 403, 404, 409, 429) },
      },
      handler: async (request, reply) => {
        const { task, rate } = await tasks.createLimited(request.principal!.accountId, request.params.agentId, request.body);
        if (rate) reply.headers(rateHeaders(rate));
        return reply.code(201).send(task);
      },
    });

    app.get('/v1/a2a/tasks/:id', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: 'Get a task',
        description: `At most ${POLLS_PER_MINUTE} reads per minute per task: beyond, 429 \`rate_limited\` (X-RateLimit-* headers describe this task's limit on every answer; stream the task instead of polling it). 404 \`task_not_found\`. ${TASK_RULES}`,
        params: TaskParams,
        response: { 200: TaskRef, ...a2aErrors(400, 401, 403, 404, 429) },
      },
      handler: async (request, reply) => {
        const { task, rate } = await tasks.poll(request.principal!.accountId, request.params.id);
        reply.headers(rateHeaders(rate));
        return task;
      },
    });

    app.get('/v1/a2a/tasks', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: "List the account's tasks",
        description: `Newest first, filtered by \`status\`, \`agent_id\` and \`context_id\`; \`limit\` default ${DEFAULT_TASK_PAGE} (1-${MAX_TASK_PAGE}), \`offset\` default 0. Answers \`{tasks, total, limit, offset}\`, \`total\` counting every match.`,
        querystring: TaskListQuery,
        response: { 200: Type.Object({ tasks: Type.Array(TaskRef), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...a2aErrors(400, 401, 403) },
      },
      handler: async (request) => {
        const { status, agent_id, context_id, limit, offset } = request.query;
        return tasks.list(request.principal!.accountId, { status, agent_id, context_id, limit: limit ?? DEFAULT_TASK_PAGE, offset: offset ?? 0 });
      },
    });

    app.post('/v1/a2a/tasks/:id/messages', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['a2a'],
        summary: 'Send a message to a task',
        description:
          'Answers 201 with the message (`role` user). Parts: `text` {text}, `data` {data, name?}, `file` {name, mime_type, data base64}; a bad part is a 400 naming it. The parts are written to the run state key `task_reply` (a JSON array; stages read it) and appended to the event log as a `message` event. ' +
          'To a task in `input_needed` the message answers the waiting `await_approval` stage: it approves it (the text parts become the approval comment) and the task goes back to `running`, unless a data part is `{"decision": "reject"}`: the approval is rejected and the task ends `canceled`. ' +
          'To a `pending` or `running` task the message is only stored (and in `task_reply`). To a task that ended: 409 `conflict`. 404 `task_not_found`.',
        params: TaskParams,
        body: MessageBody,
        response: { 201: Message, ...a2aErrors(400, 401, 403, 404, 409) },
      },
      handler: async (request, reply) => reply.code(201).send(await tasks.sendMessage(request.principal!.accountId, request.params.id, checkParts(request.body.parts as never))),
    });

    app.get('/v1/a2a/tasks/:id/messages', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: "A task's messages",
        description: "Oldest first: the user's messages and the agent's (an approval's message when the task needed input). 404 `task_not_found`.",
        params: TaskParams,
        response: { 200: Type.Object({ messages: Type.Array(Message) }), ...a2aErrors(400, 401, 403, 404) },
      },
      handler: async (request) => ({ messages: await tasks.messages(request.principal!.accountId, request.params.id) }),
    });

    app.post('/v1/a2a/tasks/:id/cancel', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['a2a'],
        summary: 'Cancel a task',
        description:
          'Cancels the task\'s run (its running stages are stopped, their sandboxes destroyed) and answers 200 `{id, status: "canceled", status_message: <reason>}`; the event log gets a `status` and an `error` {status: canceled, error: reason} event. 409 `conflict` when the task already ended. 404 `task_not_found`.',
        params: TaskParams,
        body: Type.Optional(CancelBody),
        response: { 200: CancelResult, ...a2aErrors(400, 401, 403, 404, 409) },
      },
      handler: async (request) => {
        const task = await tasks.cancel(request.principal!.accountId, request.params.id, request.body?.reason ?? 'canceled through the API');
        return { id: task.id, status: task.status, status_message: task.status_message };
      },
    });

    app.get('/v1/a2a/tasks/:id/events', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: "A task's event log",
        description:
          "The events the task stream sends, oldest first, after `after_seq` (default 0), up to `limit` (default 100, at most 1000): `sequence` (the stream's event id), `kind` (its event name) and `data`. 404 `task_not_found`.",
        params: TaskParams,
        querystring: EventsQuery,
        response: { 200: Type.Object({ events: Type.Array(TaskEventSchema) }), ...a2aErrors(400, 401, 403, 404) },
      },
      handler: async (request) => ({ events: await tasks.events(request.principal!.accountId, request.params.id, request.query.after_seq ?? 0, request.query.limit ?? 100) }),
    });

    app.get('/v1/a2a/tasks/:id/artifacts/:artifact_id', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: "An artifact's content",
        description:
          "The value of the run state entry the artifact came from, as bytes (UTF-8 of the stored string) with the artifact's mime_type. 404 `task_not_found`, or `not_found` for an unknown artifact or one whose state entry expired.",
        params: ArtifactParams,
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The artifact bytes.' }), ...a2aErrors(400, 401, 403, 404) },
      },
      handler: async (request, reply) => {
        const { view, content } = await tasks.artifact(request.principal!.accountId, request.params.id, request.params.artifact_id);
        return reply
          .type(view.mime_type)
          .header('content-disposition', `attachment; filename="${view.name.replace(/[^\w.-]/g, '_')}"`)
          .send(content);
      },
    });
  };
}
