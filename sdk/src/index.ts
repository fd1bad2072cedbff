// @paddock/sdk: the public surface.
export { Paddock } from './client.js';
export { Http, DEFAULT_URL, SDK_VERSION, type ClientOptions, type RequestOptions } from './core/http.js';
export * from './core/errors.js';
export { ndjson, sse, type SseEvent } from './core/streams.js';
export type { components, paths, Schemas, ResponseOf, BodyOf, QueryOf } from './core/types.js';
export * from './sandboxes/index.js';
// exports: the others (sdk-areas helper)
