import { describe, expect, it } from 'vitest';
import type { RunRow } from '../runs/store.js';
import { publishedPipelineEvent } from './published-events.js';

const run = { id: 'run_1', account_id: 'acc_1', pipeline_id: 'pip_1', pipeline_name: 'ci', event_count: 4 } as RunRow;

describe('publishedPipelineEvent', () => {
  it("publishes the spec's types with the timeline's fields, the run and the event's sequence", () => {
    const event = publishedPipelineEvent(run, 'pipeline.stage.failed', 'test', { attempt: 2, exit_code: 1 }, '2026-01-01T00:00:00.000Z');
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'pipeline.stage.failed',
      accountId: 'acc_1',
      occurredAt: '2026-01-01T00:00:00.000Z',
      data: { attempt: 2, exit_code: 1, pipeline_id: 'pip_1', pipeline_name: 'ci', run_id: 'run_1', sequence: 4, stage: 'test' },
    });
    expect(publishedPipelineEvent(run, 'pipeline.run.created', null, {}, 'now')!.data).not.toHaveProperty('stage');
  });

  it('keeps engine-only timeline events to the timeline', () => {
    for (const type of ['pipeline.run.canceled', 'pipeline.stage.skipped', 'pipeline.stage.retrying', 'pipeline.stage.paused_approval', 'pipeline.stage.lease_expired']) {
      expect(publishedPipelineEvent(run, type, 's', {}, 'now')).toBeNull();
    }
  });
});
