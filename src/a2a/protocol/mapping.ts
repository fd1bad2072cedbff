// The one translation between Paddock's tasks and the A2A protocol's objects: statuses to TaskStates,
// a task (with its messages and artifacts) to an A2A Task, task events to stream updates, and an incoming
// A2A Message to the skill and input of a new task.
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part as A2aPart, type Task, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { AgentRecord, ArtifactView, MessageView, Part, TaskEvent, TaskStatus, TaskView } from '../contract.js';

const STATE_OF_STATUS: Record<TaskStatus, TaskState> = {
  pending: TaskState.TASK_STATE_SUBMITTED,
  running: TaskState.TASK_STATE_WORKING,
  input_needed: TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
};

export function stateOf(status: TaskStatus): TaskState {
  return STATE_OF_STATUS[status];
}

/** The Paddock status an A2A state filter (ListTasks) names; null for states Paddock never reports. */
export function statusOf(state: TaskState): TaskStatus | null {
  const entry = Object.entries(STATE_OF_STATUS).find(([, value]) => value === state);
  return entry ? (entry[0] as TaskStatus) : null;
}

/** The artifact id under which a task's output travels (its other artifacts keep their own ids). */
export const OUTPUT_ARTIFACT_ID = 'output';

function textPart(text: string): A2aPart {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(data: unknown): A2aPart {
  return { content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

export function toA2aParts(parts: Part[]): A2aPart[] {
  return parts.map((part) => {
    if (part.type === 'text') return textPart(part.text);
    if (part.type === 'data') return { ...dataPart(part.data), filename: part.name ?? '' };
    return { content: { $case: 'raw', value: Buffer.from(part.data, 'base64') }, metadata: undefined, filename: part.name, mediaType: part.mime_type };
  });
}

/** An A2A message's parts as Paddock parts; a part by URL has no Paddock form and is refused. */
export function fromA2aParts(parts: A2aPart[]): Part[] {
  return parts.map((part, index) => {
    const content = part.content;
    if (content?.$case === 'text') return { type: 'text', text: content.value };
    if (content?.$case === 'data') return { type: 'data', data: content.value, ...(part.filename ? { name: part.filename } : {}) };
    if (content?.$case === 'raw')
      return { type: 'file', name: part.filename || `part-${index}`, mime_type: part.mediaType || 'application/octet-stream', data: Buffer.from(content.value).toString('base64') };
    throw new RequestMalformedError(`message.parts[${index}] must be a text, data or raw (file) part; parts by url are not accepted`);
  });
}

function agentMessage(task: { id: string; context_id: string }, text: string): Message {
  return { messageId: randomUUID(), contextId: task.context_id, taskId: task.id, role: Role.ROLE_AGENT, parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export function toA2aMessage(message: MessageView, contextId: string): Message {
  return {
    messageId: message.id,
    contextId,
    taskId: message.task_id,
    role: message.role === 'user' ? Role.ROLE_USER : Role.ROLE_AGENT,
    parts: toA2aParts(message.parts),
    metadata: { created_at: message.created_at },
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The output travels as an artifact: a string as a text part, anything else as a data part. */
export function outputArtifact(output: unknown): Artifact | null {
  if (output === null || output === undefined) return null;
  return {
    artifactId: OUTPUT_ARTIFACT_ID,
    name: 'output',
    description: "the task's output",
    parts: [typeof output === 'string' ? textPart(output) : dataPart(output)],
    metadata: undefined,
    extensions: [],
  };
}

/** A task artifact with its content: JSON as a data part, anything else as raw bytes (a file part). */
export function toA2aArtifact(view: ArtifactView, content: Buffer): Artifact {
  let part: A2aPart = { content: { $case: 'raw', value: content }, metadata: undefined, filename: view.name, mediaType: view.mime_type };
  if (view.mime_type === 'application/json') {
    try {
      part = { ...dataPart(JSON.parse(content.toString('utf8'))), filename: view.name };
    } catch {
      // Not JSON after all: sent as the bytes it is.
    }
  }
  return { artifactId: view.id, name: view.name, description: '', parts: [part], metadata: { created_at: view.created_at }, extensions: [] };
}

export function taskMetadata(task: TaskView): Record<string, unknown> {
  return { paddock_task_id: task.id, run_id: task.run_id, skill_id: task.skill_id, cost_usd: task.cost_usd, progress: task.progress };
}

export function toA2aStatus(task: TaskView) {
  return { state: stateOf(task.status), message: task.status_message ? agentMessage(task, task.status_message) : undefined, timestamp: task.updated_at };
}

/** `artifacts` are the task's own (with content); the output artifact is added here. `history` is newest last. */
export function toA2aTask(task: TaskView, options: { messages?: MessageView[]; artifacts?: Artifact[]; historyLength?: number } = {}): Task {
  const output = outputArtifact(task.output);
  let history = (options.messages ?? []).map((message) => toA2aMessage(message, task.context_id));
  if (options.historyLength !== undefined) history = options.historyLength === 0 ? [] : history.slice(-options.historyLength);
  return {
    id: task.id,
    contextId: task.context_id,
    status: toA2aStatus(task),
    artifacts: [...(output ? [output] : []), ...(options.artifacts ?? [])],
    history,
    metadata: taskMetadata(task),
  };
}

/** A `status` or `progress` event of the task's log as a status update (`sequence` in its metadata); null for other kinds. */
export function toStatusUpdate(task: TaskView, event: TaskEvent): TaskStatusUpdateEvent | null {
  const base = { taskId: task.id, contextId: task.context_id };
  if (event.kind === 'status') {
    const status = event.data.status as TaskStatus;
    const message = typeof event.data.message === 'string' && event.data.message ? agentMessage(task, event.data.message) : undefined;
    return { ...base, status: { state: stateOf(status), message, timestamp: event.created_at }, metadata: { sequence: event.sequence } };
  }
  if (event.kind === 'progress') {
    const text = typeof event.data.message === 'string' ? event.data.message : '';
    return {
      ...base,
      status: { state: TaskState.TASK_STATE_WORKING, message: text ? agentMessage(task, text) : undefined, timestamp: event.created_at },
      metadata: { sequence: event.sequence, progress: event.data },
    };
  }
  return null;
}

/** Which skill a message asks for: `metadata.skill_id` (of the message, else of the request), else the agent's only skill. */
export function skillFor(agent: AgentRecord, message: Message, requestMetadata: Record<string, unknown> | undefined): string {
  const named = message.metadata?.skill_id ?? requestMetadata?.skill_id;
  if (named !== undefined) {
    if (typeof named !== 'string' || !agent.skills.some((skill) => skill.id === named)) {
      throw new RequestMalformedError(`metadata.skill_id ${JSON.stringify(named)} is not a skill of agent ${agent.id} (its skills: ${agent.skills.map((s) => s.id).join(', ')})`);
    }
    return named;
  }
  if (agent.skills.length === 1) return agent.skills[0].id;
  throw new RequestMalformedError(`agent ${agent.id} has ${agent.skills.length} skills: name one in message.metadata.skill_id (one of ${agent.skills.map((s) => s.id).join(', ')})`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The task input a message carries: a message of exactly one data part holding an object is that
 * object; otherwise `text` is the text parts joined by newlines, the fields of data parts holding
 * objects are merged in, and file parts are listed in `files` ({name, mime_type, data} with base64 data).
 */
export function inputFor(message: Message): Record<string, unknown> {
  const parts = fromA2aParts(message.parts);
  if (parts.length === 1 && parts[0].type === 'data' && isPlainObject(parts[0].data)) return parts[0].data;
  const input: Record<string, unknown> = {};
  const texts = parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  if (texts.length) input.text = texts.join('\n');
  for (const part of parts) if (part.type === 'data' && isPlainObject(part.data)) Object.assign(input, part.data);
  const files = parts.flatMap((part) => (part.type === 'file' ? [{ name: part.name, mime_type: part.mime_type, data: part.data }] : []));
  if (files.length) input.files = files;
  return input;
}
