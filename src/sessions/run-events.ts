// How a pipeline lifecycle event reads in its run's session: a `lifecycle` event whose payload names the
// pipeline event and carries what a replay needs (stage, attempt, exit code, duration, error, cost).
// payload.status is the session lifecycle status (run started → `started`, completed → `completed`,
// failed or canceled → `failed`), so the run's end also ends its session; the run's own status is
// kept as `run_status`. Stage events carry no `status`, so a failing stage does not end the session.
import { randomUUID } from 'node:crypto';
import type { TimelineEvent } from './timeline.js';

export const PIPELINE_AGENT_TYPE = 'paddock-pipeline';

export interface RunEvent {
  /** `pipeline.run.created`, `pipeline.stage.failed`, … */
  type: string;
  stage: string | null;
  data: Record<string, unknown>;
  /** ISO time of the transition. */
  at: string;
}

const SESSION_STATUS: Record<string, 'started' | 'completed' | 'failed'> = {
  'pipeline.run.started': 'started',
  'pipeline.run.completed': 'completed',
  'pipeline.run.failed': 'failed',
  'pipeline.run.canceled': 'failed',
};

export function runEventPayload(event: RunEvent): Record<string, unknown> {
  const { status: runStatus, ...data } = event.data;
  const sessionStatus = SESSION_STATUS[event.type];
  return {
    event: event.type,
    ...(event.stage !== null ? { stage: event.stage } : {}),
    ...data,
    ...(runStatus !== undefined ? { run_status: runStatus } : {}),
    ...(sessionStatus ? { status: sessionStatus } : {}),
  };
}

export function runTimelineEvent(event: RunEvent): TimelineEvent {
  return { id: randomUUID(), clientId: null, type: 'lifecycle', timestamp: event.at, meta: { source: 'pipeline' }, payload: runEventPayload(event) };
}
