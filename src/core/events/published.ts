// Events a user can subscribe to (webhook endpoints): the sandbox lifecycle and the spec's pipeline
// events. The feature that decides an event publishes it inside the transaction that records it, so an
// event is delivered if and only if the change it reports committed.
import type { Tx } from '../db/handles.js';

export const SANDBOX_EVENT_TYPES = [
  'sandbox.created',
  'sandbox.running',
  'sandbox.paused',
  'sandbox.resumed',
  'sandbox.restoring',
  'sandbox.restored',
  'sandbox.error',
  'sandbox.budget_threshold',
  'sandbox.destroyed',
] as const;

export const PIPELINE_EVENT_TYPES = [
  'pipeline.run.created',
  'pipeline.run.started',
  'pipeline.run.completed',
  'pipeline.run.failed',
  'pipeline.stage.started',
  'pipeline.stage.completed',
  'pipeline.stage.failed',
] as const;

export type SandboxEventType = (typeof SANDBOX_EVENT_TYPES)[number];
export type PipelineEventType = (typeof PIPELINE_EVENT_TYPES)[number];
export type PublishedEventType = SandboxEventType | PipelineEventType;
export const PUBLISHED_EVENT_TYPES: readonly PublishedEventType[] = [...SANDBOX_EVENT_TYPES, ...PIPELINE_EVENT_TYPES];

export interface PublishedEvent {
  /** Unique per event (`evt_…`); receivers deduplicate on it (it becomes the webhook-id). */
  id: string;
  type: PublishedEventType;
  accountId: string;
  /** ISO 8601, when the change committed. */
  occurredAt: string;
  /** The event's JSON payload (`sandbox_id`, `run_id`, `stage`, reasons…), as subscribers receive it. */
  data: Record<string, unknown>;
}

/** Receives events inside the transaction that decided them (webhook fan-out writes outbox rows there). */
export interface EventPublisher {
  publish(trx: Tx, event: PublishedEvent): Promise<void>;
}

/** For an app built without subscribers (and the features' own tests). */
export const NO_PUBLISHER: EventPublisher = { publish: async () => {} };
