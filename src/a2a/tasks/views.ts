// Tasks, messages, artifacts and log events as the API answers them.
import type { ArtifactView, MessageView, Part, TaskEvent, TaskView } from '../contract.js';
import type { ArtifactRow, MessageRow, TaskEventRow, TaskRow } from './store.js';

export function artifactView(row: ArtifactRow): ArtifactView {
  return { id: row.id, name: row.name, mime_type: row.mime_type, created_at: row.created_at };
}

export function taskView(row: TaskRow, artifacts: ArtifactRow[]): TaskView {
  return {
    id: row.id,
    agent_id: row.agent_id,
    status: row.status,
    status_message: row.status_message,
    progress: JSON.parse(row.progress),
    skill_id: row.skill_id,
    input: JSON.parse(row.input),
    priority: row.priority,
    output: row.output === null ? null : JSON.parse(row.output),
    artifacts: artifacts.map(artifactView),
    cost_usd: row.cost_usd,
    context_id: row.context_id,
    run_id: row.run_id,
    session_id: row.session_id,
    started_at: row.started_at,
    completed_at: row.completed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function messageView(row: MessageRow): MessageView {
  return { id: row.id, task_id: row.task_id, role: row.role, parts: JSON.parse(row.parts) as Part[], created_at: row.created_at };
}

export function eventView(row: TaskEventRow): TaskEvent {
  return { sequence: row.sequence, kind: row.kind, data: JSON.parse(row.data), created_at: row.created_at };
}
