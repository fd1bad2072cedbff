// The A2A request handler of one agent for one caller (the agent's account), backed by Paddock's
// durable tasks: the SDK's transport handlers parse, dispatch and map errors; every method here reads
// or changes Paddock tasks through TaskService, and streams read the task's event log.
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { ExtendedAgentCardNotConfiguredError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { TERMINAL_TASK_STATUSES, type AgentDirectory, type AgentRecord, type TaskService, type TaskView } from '../contract.js';
import type { TaskSignals } from '../task-signals.js';
import { protocolError } from './errors.js';
import { fromA2aParts, inputFor, skillFor, statusOf, toA2aArtifact, toA2aTask } from './mapping.js';
import type { PushConfigStore, StoredPushConfig } from './push-configs.js';
import { toA2aConfig } from './push-configs.js';
import { followTask, lastSequence, waitForStop } from './task-follow.js';

/** How long a blocking SendMessage waits for the task to end or need input before answering with the task as it is. */
export const SEND_MESSAGE_WAIT_MS = 60_000;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** Where the transport puts the request's abort signal (client gone) and Last-Event-ID in the call context. */
export const ABORT_SIGNAL_KEY = 'paddock.abort_signal';
export const LAST_EVENT_ID_KEY = 'paddock.last_event_id';

export interface ProtocolDeps {
  tasks: TaskService;
  agents: AgentDirectory;
  signals: TaskSignals;
  pushConfigs: PushConfigStore;
  /** Queues one push notification of the task as it is now to `config`. */
  pushNow(accountId: string, task: TaskView, config: StoredPushConfig): Promise<void>;
}

export class AgentRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly deps: ProtocolDeps,
    private readonly accountId: string,
    private readonly agent: AgentRecord,
    private readonly card: AgentCard,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError();
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const after = await this.sequenceBefore(params);
    const task = await this.startOrAnswer(params);
    if (params.configuration?.returnImmediately) return this.a2aTask(task.id);
    // Judged on the log after the request, so an answered task still shown waiting for input is not taken as done.
    const deadline = AbortSignal.any([AbortSignal.timeout(SEND_MESSAGE_WAIT_MS), abortSignalOf(context)]);
    await this.call(() => waitForStop(this.deps, this.accountId, task.id, after, deadline));
    return this.a2aTask(task.id);
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const after = await this.sequenceBefore(params);
    const task = await this.startOrAnswer(params);
    // The task as the request left it (a new one `submitted`), then every event after that point in order.
    yield { payload: { $case: 'task', value: await this.a2aTaskOf(task, { withArtifacts: true }) } };
    yield* this.follow(task, after, context);
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    return this.a2aTask(params.id, params.historyLength);
  }

  async listTasks(params: ListTasksRequest): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new RequestMalformedError(`pageSize must be from 1 to ${MAX_PAGE_SIZE}`);
    const offset = params.pageToken ? Number(params.pageToken) : 0;
    if (!Number.isInteger(offset) || offset < 0) throw new RequestMalformedError('pageToken must be a token from an earlier ListTasks answer');
    const status = params.status === TaskState.TASK_STATE_UNSPECIFIED ? undefined : (statusOf(params.status) ?? 'none');
    if (status === 'none') return { tasks: [], nextPageToken: '', pageSize, totalSize: 0 };
    const page = await this.call(() => this.deps.tasks.list(this.accountId, { agent_id: this.agent.id, context_id: params.contextId || undefined, status, limit: pageSize, offset }));
    const tasks = await Promise.all(page.tasks.map((task) => this.a2aTaskOf(task, { historyLength: params.historyLength, withArtifacts: params.includeArtifacts === true })));
    const next = offset + page.tasks.length;
    return { tasks, nextPageToken: next < page.total ? String(next) : '', pageSize, totalSize: page.total };
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    await this.ownTask(params.id);
    const reason = typeof params.metadata?.reason === 'string' && params.metadata.reason ? params.metadata.reason : 'canceled by an A2A CancelTask request';
    await this.call(() => this.deps.tasks.cancel(this.accountId, params.id, reason), 'cancel');
    return this.a2aTask(params.id);
  }

  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await this.ownTask(params.id);
    const lastEventId = Number(context.state.get(LAST_EVENT_ID_KEY));
    // Without Last-Event-ID a subscriber gets the task as it is now and what happens from now on.
    const after = Number.isInteger(lastEventId) && lastEventId >= 0 ? lastEventId : await this.call(() => lastSequence(this.deps.tasks, this.accountId, task.id));
    yield { payload: { $case: 'task', value: await this.a2aTask(task.id) } };
    // An ended task has nothing more to say; one waiting for input is followed until it is answered and moves on.
    if (TERMINAL_TASK_STATUSES.includes(task.status) && !(Number.isInteger(lastEventId) && lastEventId >= 0)) return;
    yield* this.follow(task, after, context);
  }

  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    await this.ownTask(params.taskId);
    return toA2aConfig(await this.deps.pushConfigs.create(this.accountId, params.taskId, params));
  }

  async getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
    await this.ownTask(params.taskId);
    const config = await this.deps.pushConfigs.get(this.accountId, params.taskId, params.id);
    if (!config) throw new TaskNotFoundError(`push-notification config ${params.id} of task ${params.taskId} not found`);
    return toA2aConfig(config);
  }

  async listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    await this.ownTask(params.taskId);
    return { configs: (await this.deps.pushConfigs.list(this.accountId, params.taskId)).map(toA2aConfig), nextPageToken: '' };
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    await this.ownTask(params.taskId);
    if (!(await this.deps.pushConfigs.delete(this.accountId, params.taskId, params.id))) throw new TaskNotFoundError(`push-notification config ${params.id} of task ${params.taskId} not found`);
  }

  /** Where the log stood before this request: 0 for a new task, the last sequence of the task a message answers. */
  private async sequenceBefore(params: SendMessageRequest): Promise<number> {
    const taskId = params.message?.taskId;
    return taskId ? this.call(() => lastSequence(this.deps.tasks, this.accountId, taskId)) : 0;
  }

  /** A new task for the message, or — when it names a task waiting for input — the answer to it. Then its push config, if asked for. */
  private async startOrAnswer(params: SendMessageRequest): Promise<TaskView> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('message is required');
    let task: TaskView;
    if (message.taskId) {
      await this.ownTask(message.taskId);
      const parts = fromA2aParts(message.parts);
      await this.call(() => this.deps.tasks.sendMessage(this.accountId, message.taskId, parts), 'answer');
      task = await this.call(() => this.deps.tasks.get(this.accountId, message.taskId));
    } else {
      const skillId = skillFor(this.agent, message, params.metadata);
      const input = inputFor(message);
      this.call(() => this.deps.agents.validateInput(this.agent, skillId, input));
      task = await this.call(() => this.deps.tasks.create(this.accountId, this.agent.id, { skill_id: skillId, input, context_id: message.contextId || undefined }));
    }
    const push = params.configuration?.taskPushNotificationConfig;
    if (push?.url) {
      // Stored just after the task was created (or answered), so its first push is the task as it is
      // then: the changes made in between are not lost. Later changes are pushed as they happen.
      const config = await this.deps.pushConfigs.create(this.accountId, task.id, { ...push, taskId: task.id });
      task = await this.call(() => this.deps.tasks.get(this.accountId, task.id));
      await this.deps.pushNow(this.accountId, task, config);
    }
    return task;
  }

  private follow(task: TaskView, after: number, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    return followTask(this.deps, this.accountId, task, after, abortSignalOf(context));
  }

  /** The account's task of this agent; TaskNotFoundError otherwise (another agent's task is not this endpoint's). */
  private async ownTask(taskId: string): Promise<TaskView> {
    if (!taskId) throw new RequestMalformedError('a task id is required');
    const task = await this.call(() => this.deps.tasks.get(this.accountId, taskId));
    if (task.agent_id !== this.agent.id) throw new TaskNotFoundError(`task ${taskId} not found`);
    return task;
  }

  private async a2aTask(taskId: string, historyLength?: number): Promise<Task> {
    return this.a2aTaskOf(await this.ownTask(taskId), { historyLength, withArtifacts: true });
  }

  private async a2aTaskOf(task: TaskView, options: { historyLength?: number; withArtifacts: boolean }): Promise<Task> {
    const messages = options.historyLength === 0 ? [] : await this.call(() => this.deps.tasks.messages(this.accountId, task.id));
    const artifacts = options.withArtifacts
      ? await Promise.all(task.artifacts.map(async (view) => toA2aArtifact(view, (await this.call(() => this.deps.tasks.artifact(this.accountId, task.id, view.id))).content)))
      : [];
    return toA2aTask(task, { messages, artifacts, historyLength: options.historyLength });
  }

  /** Runs a TaskService/AgentDirectory call, turning its Paddock errors into the protocol's. */
  private call<T>(fn: () => T, operation?: 'cancel' | 'answer'): T {
    try {
      const result = fn();
      return result instanceof Promise ? (result.catch((error) => Promise.reject(protocolError(error, operation))) as T) : result;
    } catch (error) {
      throw protocolError(error, operation);
    }
  }
}

function abortSignalOf(context: ServerCallContext): AbortSignal {
  const signal = context.state.get(ABORT_SIGNAL_KEY);
  return signal instanceof AbortSignal ? signal : new AbortController().signal;
}
