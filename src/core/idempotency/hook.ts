// Routes declare `config: { idempotent: true }`; this one hook honours the `Idempotency-Key` header on
// them, as Stripe does: the first request with a key does the work and its answer is kept 24 h; the same
// key with the same request gets that answer back (`Idempotent-Replayed: true`) without the work being
// done again; with another request it is refused. The key is claimed in preHandler, after
// authentication (keys are per account) and schema validation (a request refused there never uses its
// key), and the answer kept in onSend, before it is written.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../errors.js';
import { PeriodicTask } from '../periodic-task.js';
import type { Database } from '../db/schema.js';
import type { Kysely } from 'kysely';
import { requestFingerprint } from './fingerprint.js';
import { IdempotencyStore, type KeyClaim, type StoredKey } from './store.js';
import type { Logger } from '../logging.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
export const MAX_KEY_LENGTH = 255;
export const RETENTION_HOURS = 24;
/** A key still unanswered this long after its request began was left by a server that stopped mid-request. */
export const ABANDONED_AFTER_MINUTES = 10;
const PRUNE_INTERVAL_MS = 15 * 60 * 1000;
const POLL_MS = 100;

/** Headers of the first answer that describe the request, not the resource: never replayed. */
const NOT_REPLAYED = new Set([
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'set-cookie',
]);

/** Seals stored answers: a first answer can hold a credential (a new API key's secret). */
export interface ResponseSealer {
  seal(accountId: string, key: string, plaintext: string): string;
  open(accountId: string, key: string, sealed: string): string;
}

export interface IdempotencyOptions {
  db: Kysely<Database>;
  sealer: ResponseSealer;
  /** Keys the request fingerprints (HMAC). */
  fingerprintKey: Buffer;
  log: Logger;
  /** How long a duplicate waits for the first request to answer before it gets 409 `idempotency_in_progress`. */
  waitMs: number;
}

export const KEY_HEADER_SCHEMA = Type.String({
  minLength: 1,
  maxLength: MAX_KEY_LENGTH,
  description: `Optional, up to ${MAX_KEY_LENGTH} characters, unique per operation (a UUID). A retry with the same key and the same request within ${RETENTION_HOURS} h gets the first answer back (with \`Idempotent-Replayed: true\`) and the work is not done again; the same key with another method, path or body answers 422 \`idempotency_conflict\`. See "Idempotency" in the API description.`,
});

function declareKeyHeader(route: RouteOptions): void {
  const schema = (route.schema ?? {}) as Record<string, any>;
  const headers = schema.headers ?? Type.Object({});
  route.schema = { ...schema, headers: { ...headers, properties: { ...headers.properties, [IDEMPOTENCY_HEADER]: KEY_HEADER_SCHEMA } } };
}

function bodyBytes(payload: unknown): Buffer | null {
  if (payload === undefined || payload === null) return Buffer.alloc(0);
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (Buffer.isBuffer(payload)) return payload;
  return null;
}

function replayableHeaders(reply: FastifyReply): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (NOT_REPLAYED.has(name.toLowerCase()) || value === undefined) continue;
    kept[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return kept;
}

function conflict(key: string, row: StoredKey, method: string, path: string): HttpError<422> {
  const where = row.method === method && row.path === path ? `${row.method} ${row.path} with another body` : `${row.method} ${row.path}`;
  return new HttpError(422, `Idempotency-Key ${JSON.stringify(key)} was first used for ${where}: a key names one request, use a new key for a different one`, 'idempotency_conflict', {
    field: IDEMPOTENCY_HEADER,
  });
}

function inProgress(key: string): HttpError<409> {
  return new HttpError(
    409,
    `the first request with Idempotency-Key ${JSON.stringify(key)} is still running: retry after it answers`,
    'idempotency_in_progress',
    { field: IDEMPOTENCY_HEADER },
    { 'retry-after': '1' },
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function registerIdempotency(app: FastifyInstance, options: IdempotencyOptions): Promise<IdempotencyStore> {
  const store = new IdempotencyStore(options.db, RETENTION_HOURS * 3600 * 1000, ABANDONED_AFTER_MINUTES * 60 * 1000);
  const claims = new WeakMap<FastifyRequest, KeyClaim>();
  const fingerprints = new WeakMap<FastifyRequest, string>();

  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotent) return;
    if (route.config.access?.kind === 'open') throw new Error(`${String(route.method)} ${route.url} declares idempotent but is open: idempotency keys belong to an account`);
    declareKeyHeader(route);
  });

  function replay(reply: FastifyReply, row: StoredKey, claim: KeyClaim): FastifyReply {
    reply.code(row.response_status!);
    for (const [name, value] of Object.entries(JSON.parse(row.response_headers ?? '{}') as Record<string, string>)) reply.header(name, value);
    reply.header(REPLAYED_HEADER, 'true');
    return reply.send(Buffer.from(options.sealer.open(claim.accountId, claim.key, row.response_body ?? ''), 'base64'));
  }

  // Taken before validation fills in defaults: the request is compared as the client sent it.
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config?.idempotent && request.headers[IDEMPOTENCY_HEADER] !== undefined) {
      fingerprints.set(request, requestFingerprint(options.fingerprintKey, request.method, request.url, request.body));
    }
  });

  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers[IDEMPOTENCY_HEADER];
    const fingerprint = fingerprints.get(request);
    if (!request.routeOptions.config?.idempotent || typeof key !== 'string' || !fingerprint || !request.principal) return;
    const path = request.url.split('?')[0];
    const deadline = Date.now() + options.waitMs;
    for (;;) {
      const claim: KeyClaim = { accountId: request.principal.accountId, key, fingerprint, method: request.method, path, claimedAt: new Date() };
      const outcome = await store.claim(claim);
      if (outcome.kind === 'claimed') {
        claims.set(request, claim);
        return;
      }
      if (outcome.row.fingerprint !== fingerprint) throw conflict(key, outcome.row, request.method, path);
      if (outcome.row.response_status !== null) return replay(reply, outcome.row, claim);
      if (Date.now() >= deadline) throw inProgress(key);
      await sleep(POLL_MS);
    }
  });

  // Stored before the answer is written, so a duplicate waiting for it sees it no later than the client.
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = claims.get(request);
    if (!claim) return payload;
    claims.delete(request);
    try {
      const body = bodyBytes(payload);
      // A 5xx is the server failing, not an answer about the request: the key is freed for a retry.
      if (reply.statusCode >= 500 || body === null) await store.release(claim);
      else await store.complete(claim, { status: reply.statusCode, headers: replayableHeaders(reply), sealedBody: options.sealer.seal(claim.accountId, claim.key, body.toString('base64')) });
    } catch (err) {
      request.log.error({ err }, 'could not store the answer to an idempotent request');
    }
    return payload;
  });

  const pruning = new PeriodicTask('idempotency key prune', PRUNE_INTERVAL_MS, async () => void (await store.prune()), options.log);
  app.addHook('onReady', async () => pruning.start(PRUNE_INTERVAL_MS));
  app.addHook('onClose', async () => pruning.stop());
  return store;
}
