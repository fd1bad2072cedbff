// Shorthands over the types generated from the server's /openapi.json (src/generated/openapi.ts).
import type { components, paths } from '../generated/openapi.js';

export type { components, paths };
export type Schemas = components['schemas'];

type Operation<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];
type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body a route answers with `status`. */
export type ResponseOf<P extends keyof paths, M extends keyof paths[P], S extends number = 200> =
  Operation<P, M> extends { responses: infer R } ? (S extends keyof R ? JsonContent<R[S]> : never) : never;

/** The JSON body a route takes. */
export type BodyOf<P extends keyof paths, M extends keyof paths[P]> = Operation<P, M> extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;

/** The query parameters a route takes. */
export type QueryOf<P extends keyof paths, M extends keyof paths[P]> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
