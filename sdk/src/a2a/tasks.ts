// paddock.tasks: tasks delegated to A2A agents: send, read, list, cancel, answer one that needs input, and
// stream its events (SSE, resumed after a dropped connection without losing or repeating one).
import type { Http } from '../core/http.js';
import { ConnectionError } from '../core/errors.js';
import { segment } from '../core/paths.js';
import { sse } from '../core/streams.js';
import { backoffMs, sleep } from '../core/http.js';
import type { BodyOf, QueryOf, ResponseOf, Schemas } from '../core/types.js';

export type Task = Schemas['A2aTask'];
export type TaskStatus = Task['status'];
export type SendTaskParams = BodyOf<'/v1/a2a/agents/{agentId}/tasks', 'post'>;
export type TaskList = ResponseOf<'/v1/a2a/tasks', 'get'>;
export type TaskMessage = ResponseOf<'/v1/a2a/tasks/{id}/messages', 'post', 201>;
export type MessagePart = BodyOf<'/v1/a2a/tasks/{id}/messages', 'post'>['parts'][number];
export type CancelTaskAnswer = ResponseOf<'/v1/a2a/tasks/{id}/cancel', 'post'>;
export type TaskEventLog = ResponseOf<'/v1/a2a/tasks/{id}/events', 'get'>;

export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'canceled'];

/** One event of a task's stream: `kind` is the SSE event (`status`, `progress`, `message`, `artifact`, `complete`, `error`). */
export interface TaskStreamEvent {
  /** The event's sequence in the task's log (1, 2, …). */
  sequence: number;
  kind: string;
  data: Record<string, unknown>;
}

export interface StreamTaskOptions {
  /** Start after this sequence (what a previous stream last yielded). */
  afterSequence?: number;
  /** Reconnections after a dropped connection before giving up; default 5. */
  maxReconnects?: number;
  signal?: AbortSignal;
}

export class Tasks {
  constructor(private readonly http: Http) {}

  /** Delegates a task to an agent (`skill_id`, `input` matching the skill's schema); status `pending`. */
  send(agentId: string, params: SendTaskParams): Promise<Task> {
    return this.http.request('POST', `/v1/a2a/agents/${segment(agentId)}/tasks`, { body: params });
  }

  /** At most 60 reads per minute per task: prefer `stream`. */
  get(taskId: string): Promise<Task> {
    return this.http.request('GET', `/v1/a2a/tasks/${segment(taskId)}`);
  }

  /** Newest first: `{tasks, total, limit, offset}`. */
  list(query: QueryOf<'/v1/a2a/tasks', 'get'> = {}): Promise<TaskList> {
    return this.http.request('GET', '/v1/a2a/tasks', { query });
  }

  /** Cancels the task's run. */
  cancel(taskId: string, reason?: string): Promise<CancelTaskAnswer> {
    return this.http.request('POST', `/v1/a2a/tasks/${segment(taskId)}/cancel`, { body: reason === undefined ? {} : { reason } });
  }

  /** Sends a message (parts) to the task; to a task in `input_needed` it answers the question and the task goes on. */
  sendMessage(taskId: string, parts: MessagePart[]): Promise<TaskMessage> {
    return this.http.request('POST', `/v1/a2a/tasks/${segment(taskId)}/messages`, { body: { parts } });
  }

  /**
   * Answers a task waiting in `input_needed`: text approves the waiting step (the text is its comment);
   * `{reject: true}` rejects it and the task ends `canceled`.
   */
  respond(taskId: string, answer: string | { text?: string; reject?: boolean }): Promise<TaskMessage> {
    const { text, reject } = typeof answer === 'string' ? { text: answer, reject: false } : answer;
    const parts: MessagePart[] = [];
    if (text) parts.push({ type: 'text', text } as MessagePart);
    if (reject) parts.push({ type: 'data', data: { decision: 'reject' } } as MessagePart);
    if (!parts.length) parts.push({ type: 'text', text: 'approved' } as MessagePart);
    return this.sendMessage(taskId, parts);
  }

  /** The messages of the task, oldest first. */
  async messages(taskId: string): Promise<TaskMessage[]> {
    return (await this.http.request<{ messages: TaskMessage[] }>('GET', `/v1/a2a/tasks/${segment(taskId)}/messages`)).messages;
  }

  /** The stored event log, one page (`after_seq`, `limit`). */
  events(taskId: string, query: QueryOf<'/v1/a2a/tasks/{id}/events', 'get'> = {}): Promise<TaskEventLog> {
    return this.http.request('GET', `/v1/a2a/tasks/${segment(taskId)}/events`, { query });
  }

  /**
   * The task's events as they happen, from the first (or after `afterSequence`), ending after `complete` or
   * `error`. A dropped connection is resumed with Last-Event-ID, so no event is lost or repeated.
   */
  async *stream(taskId: string, options: StreamTaskOptions = {}): AsyncGenerator<TaskStreamEvent> {
    let last = options.afterSequence ?? 0;
    const maxReconnects = options.maxReconnects ?? 5;
    for (let reconnects = 0; ;) {
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (last > 0) headers['last-event-id'] = String(last);
        const response = await this.http.stream('GET', `/v1/a2a/tasks/${segment(taskId)}/stream`, { headers, signal: options.signal });
        for await (const frame of sse(response)) {
          const sequence = Number(frame.id);
          if (Number.isFinite(sequence)) last = sequence;
          yield { sequence, kind: frame.event, data: JSON.parse(frame.data) as Record<string, unknown> };
          if (frame.event === 'complete' || frame.event === 'error') return;
          reconnects = 0;
        }
        // The server ends the stream after `complete`/`error`; an end before it is a dropped connection,
        // unless the task had already ended before `afterSequence` (then there is nothing left to send).
        if (TERMINAL_TASK_STATUSES.includes((await this.get(taskId)).status) && (await this.events(taskId, { after_seq: last, limit: 1 })).events.length === 0) return;
      } catch (error) {
        if (options.signal?.aborted || !(error instanceof ConnectionError || isStreamBreak(error))) throw error;
      }
      if (++reconnects > maxReconnects) throw new ConnectionError(`the stream of task ${taskId} kept dropping (after event ${last})`);
      await sleep(backoffMs(reconnects - 1), options.signal);
    }
  }

  /** Streams the task until it ends and answers it (a task needing input keeps it waiting: use `stream`). */
  async wait(taskId: string, options: StreamTaskOptions = {}): Promise<Task> {
    for await (const _event of this.stream(taskId, options));
    return this.get(taskId);
  }
}

/** A body that broke while being read (the server went away mid-stream). */
function isStreamBreak(error: unknown): boolean {
  return error instanceof TypeError || (error as { name?: string })?.name === 'SocketError';
}
