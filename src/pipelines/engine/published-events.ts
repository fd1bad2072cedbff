// Which run timeline events users can subscribe to (the spec's pipeline.run.* and pipeline.stage.*
// events of the published catalogue) and the payload they receive: the timeline event's fields with
// the run it belongs to and its place in the run's timeline.
import { PIPELINE_EVENT_TYPES, type PipelineEventType, type PublishedEvent } from '../../core/events/published.js';
import { newId } from '../../core/ids.js';
import type { RunRow } from '../runs/store.js';

function isPublished(type: string): type is PipelineEventType {
  return (PIPELINE_EVENT_TYPES as readonly string[]).includes(type);
}

/** The published event for a timeline event just appended to `run` (its sequence is `run.event_count`), or null for engine-only types (skipped, retrying, …). */
export function publishedPipelineEvent(run: RunRow, type: string, stage: string | null, data: Record<string, unknown>, at: string): PublishedEvent | null {
  if (!isPublished(type)) return null;
  return {
    id: newId('evt'),
    type,
    accountId: run.account_id,
    occurredAt: at,
    data: { ...data, pipeline_id: run.pipeline_id, pipeline_name: run.pipeline_name, run_id: run.id, sequence: run.event_count, ...(stage !== null ? { stage } : {}) },
  };
}
