// What the a2a stage reads from a remote A2A task as it progresses: its state, the cost the agent
// reports (`cost_usd` in metadata, its running total), and the output (artifacts, else the final
// status message, else a direct message reply).
import { TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import type { StreamResponse } from '@a2a-js/sdk';

export const TERMINAL_STATES = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);
/** States the agent leaves only after more input from the caller, which a pipeline stage cannot give. */
export const INTERRUPTED_STATES = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

const STATE_NAMES: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_SUBMITTED]: 'submitted',
  [TaskState.TASK_STATE_WORKING]: 'working',
  [TaskState.TASK_STATE_COMPLETED]: 'completed',
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input-required',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth-required',
};

export function stateName(state: TaskState): string {
  return STATE_NAMES[state] ?? 'unknown';
}

/** What has been learned about the remote task so far. */
export interface TaskProgress {
  taskId: string | null;
  contextId: string | null;
  state: TaskState | null;
  statusMessage: Message | null;
  artifacts: Map<string, Artifact>;
  /** A reply that came as a message instead of a task. */
  reply: Message | null;
  costUsd: number;
}

export function newProgress(): TaskProgress {
  return { taskId: null, contextId: null, state: null, statusMessage: null, artifacts: new Map(), reply: null, costUsd: 0 };
}

function reportedCost(metadata: Record<string, unknown> | undefined): number | null {
  const value = metadata?.cost_usd;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function noteCost(progress: TaskProgress, metadata: Record<string, unknown> | undefined): void {
  const cost = reportedCost(metadata);
  if (cost !== null) progress.costUsd = Math.max(progress.costUsd, cost);
}

export function applyTask(progress: TaskProgress, task: Task): void {
  progress.taskId = task.id;
  progress.contextId = task.contextId;
  if (task.status) {
    progress.state = task.status.state;
    progress.statusMessage = task.status.message ?? progress.statusMessage;
  }
  for (const artifact of task.artifacts ?? []) progress.artifacts.set(artifact.artifactId, artifact);
  noteCost(progress, task.metadata);
  for (const artifact of task.artifacts ?? []) noteCost(progress, artifact.metadata);
}

export function applyStreamEvent(progress: TaskProgress, event: StreamResponse): void {
  const payload = event.payload;
  if (!payload) return;
  switch (payload.$case) {
    case 'task':
      applyTask(progress, payload.value);
      break;
    case 'message':
      progress.reply = payload.value;
      noteCost(progress, payload.value.metadata);
      break;
    case 'statusUpdate':
      progress.taskId = payload.value.taskId;
      if (payload.value.status) {
        progress.state = payload.value.status.state;
        progress.statusMessage = payload.value.status.message ?? progress.statusMessage;
      }
      noteCost(progress, payload.value.metadata);
      break;
    case 'artifactUpdate': {
      const artifact = payload.value.artifact;
      if (!artifact) break;
      const earlier = progress.artifacts.get(artifact.artifactId);
      progress.artifacts.set(artifact.artifactId, payload.value.append && earlier ? { ...earlier, parts: [...earlier.parts, ...artifact.parts] } : artifact);
      noteCost(progress, artifact.metadata);
      noteCost(progress, payload.value.metadata);
      break;
    }
  }
}

function partsText(parts: Part[]): string {
  return parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('');
}

function partsData(parts: Part[]): unknown[] {
  return parts.flatMap((part) => (part.content?.$case === 'data' ? [part.content.value] : []));
}

export function messageText(message: Message | null): string {
  return message ? partsText(message.parts) : '';
}

/** The value the stage stores in state: the text and data of the output, and where it came from. */
export function taskOutput(progress: TaskProgress, agentUrl: string) {
  const artifacts = [...progress.artifacts.values()];
  const source = artifacts.length ? artifacts.flatMap((a) => a.parts) : ((progress.reply ?? progress.statusMessage)?.parts ?? []);
  return {
    agent_url: agentUrl,
    task_id: progress.taskId,
    context_id: progress.contextId,
    state: progress.state === null ? (progress.reply ? 'completed' : 'unknown') : stateName(progress.state),
    text: partsText(source),
    data: partsData(source),
    artifacts: artifacts.map((a) => ({ id: a.artifactId, name: a.name, text: partsText(a.parts), data: partsData(a.parts) })),
    cost_usd: progress.costUsd,
  };
}
