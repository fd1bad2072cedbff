// @paddock/sdk: the public surface.
export { Paddock } from './client.js';
export { Http, DEFAULT_URL, SDK_VERSION, type ClientOptions, type RequestOptions } from './core/http.js';
export * from './core/errors.js';
export { ndjson, sse, type SseEvent } from './core/streams.js';
export type { components, paths, Schemas, ResponseOf, BodyOf, QueryOf } from './core/types.js';
export * from './sandboxes/index.js';
export { SnapshotsById } from './snapshots.js';
export * from './pipelines/pipelines.js';
export * from './evals.js';
export * from './sessions/sessions.js';
export { EventIngester, type IngestEvent, type IngestStats, type EventType } from './sessions/event-ingester.js';
export * from './alerts.js';
export * from './billing.js';
export * from './a2a/agents.js';
export * from './a2a/tasks.js';
export * from './keys.js';
export * from './secrets.js';
export * from './webhooks.js';
