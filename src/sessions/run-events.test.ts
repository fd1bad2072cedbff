import { describe, expect, it } from 'vitest';
import { runEventPayload, runTimelineEvent } from './run-events.js';

const at = '2026-01-01T00:00:00.000Z';

describe('pipeline events in a run session', () => {
  it('maps the run end to a session lifecycle status and keeps the run status apart', () => {
    expect(runEventPayload({ type: 'pipeline.run.completed', stage: null, data: { status: 'succeeded', duration_ms: 5 }, at })).toEqual({
      event: 'pipeline.run.completed',
      duration_ms: 5,
      run_status: 'succeeded',
      status: 'completed',
    });
    expect(runEventPayload({ type: 'pipeline.run.canceled', stage: null, data: { status: 'canceled', error: 'why' }, at })).toMatchObject({ run_status: 'canceled', status: 'failed', error: 'why' });
    expect(runEventPayload({ type: 'pipeline.run.started', stage: null, data: {}, at })).toEqual({ event: 'pipeline.run.started', status: 'started' });
  });

  it('gives stage events no status, so a failing stage does not end the session', () => {
    const payload = runEventPayload({ type: 'pipeline.stage.failed', stage: 'test', data: { attempt: 2, exit_code: 1, error: 'command exited with 1' }, at });
    expect(payload).toEqual({ event: 'pipeline.stage.failed', stage: 'test', attempt: 2, exit_code: 1, error: 'command exited with 1' });
  });

  it('records them as lifecycle events from the pipeline, at the transition time', () => {
    const event = runTimelineEvent({ type: 'pipeline.run.created', stage: null, data: { version: 1 }, at });
    expect(event).toMatchObject({ type: 'lifecycle', timestamp: at, clientId: null, meta: { source: 'pipeline' }, payload: { event: 'pipeline.run.created', version: 1 } });
  });
});
