// Batches a session's events to POST /v1/events/ingest: flushes at `maxBatch` events or after
// `flushIntervalMs`, on close and before the process exits, and retries a failed batch without losing or
// duplicating an event. Duplicates are impossible because every event gets a client `id` (a UUID) when
// added and a batch keeps its events, ids and Idempotency-Key across retries: the server stores an id a
// session already holds only once. Order is kept: one batch is in flight at a time, and a batch that
// failed is sent again before any later event.
import { ConnectionError, PaddockError, RateLimitError, ServerError } from '../core/errors.js';
import { backoffMs, sleep, type Http } from '../core/http.js';
import type { ResponseOf } from '../core/types.js';

export type IngestResult = ResponseOf<'/v1/events/ingest', 'post'>;
export type EventType = 'llm_call' | 'tool_call' | 'file_op' | 'command' | 'network' | 'error' | 'lifecycle';

/** What `add` takes: the session, owner, timestamp and id are filled in when missing. */
export interface SessionEvent {
  type: EventType;
  payload?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  /** ISO 8601; default now. */
  timestamp?: string;
  /** A UUID; default a new one. */
  id?: string;
  sandbox_id?: string;
  pipeline_run_id?: string;
}

export interface IngestOptions {
  /** The sandbox the session belongs to (or `pipelineRunId`); an event may also carry its own. */
  sandboxId?: string;
  /** Send the events to this pipeline run's session instead. */
  pipelineRunId?: string;
  /** Events per request (1-1000); default 100. */
  maxBatch?: number;
  /** Longest an added event waits before it is sent; default 1 000. */
  flushIntervalMs?: number;
  /** Tries of one batch before flush() rejects (the batch stays queued for the next flush); default 5. */
  maxAttempts?: number;
  /** Flush on the process's 'beforeExit'; default true. */
  flushOnExit?: boolean;
  /** Events the server refused (invalid), with its reason: they are not retried. */
  onRejected?: (event: IngestEvent, reason: string) => void;
  /** A background flush (size or interval) failed; the events stay queued. */
  onError?: (error: unknown) => void;
}

/** An event as sent: the API types `events` loosely (each is checked on its own), so this says what Paddock reads. */
export type IngestEvent = SessionEvent & { session_id: string; id: string; timestamp: string };
interface Batch {
  idempotencyKey: string;
  events: IngestEvent[];
}

export interface IngestStats {
  /** Requests that succeeded. */
  batches: number;
  /** Events stored (duplicates of already stored ones included, as the server counts them). */
  accepted: number;
  duplicates: number;
  rejected: number;
}

const MAX_BATCH = 1000;

export class EventIngester {
  readonly stats: IngestStats = { batches: 0, accepted: 0, duplicates: 0, rejected: 0 };
  private buffer: IngestEvent[] = [];
  /** The batch being sent, or one that failed: sent again, as it is, before anything newer. */
  private pending: Batch | null = null;
  private chain: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private exitFlushFailed = false;
  private readonly maxBatch: number;
  private readonly onBeforeExit = () => {
    if (this.exitFlushFailed || !this.size) return;
    this.flush().catch((error) => {
      this.exitFlushFailed = true;
      this.options.onError?.(error);
    });
  };

  constructor(
    private readonly http: Http,
    readonly sessionId: string,
    private readonly options: IngestOptions = {},
  ) {
    this.maxBatch = Math.max(1, Math.min(MAX_BATCH, Math.floor(options.maxBatch ?? 100)));
    if (options.flushOnExit !== false && typeof process !== 'undefined') process.on('beforeExit', this.onBeforeExit);
  }

  /** Events added and not yet stored. */
  get size(): number {
    return this.buffer.length + (this.pending?.events.length ?? 0);
  }

  /** Queues an event; it is sent within `flushIntervalMs`, or at once when a batch is full. */
  add(event: SessionEvent): void {
    if (this.closed) throw new PaddockError({ status: 0, code: 'ingester_closed', message: `the ingester of session ${this.sessionId} is closed` });
    const owner = event.sandbox_id || event.pipeline_run_id ? {} : this.options.pipelineRunId ? { pipeline_run_id: this.options.pipelineRunId } : { sandbox_id: this.options.sandboxId };
    this.buffer.push({ ...owner, ...event, session_id: this.sessionId, id: event.id ?? crypto.randomUUID(), timestamp: event.timestamp ?? new Date().toISOString() });
    if (this.buffer.length >= this.maxBatch) this.flushInBackground();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flushInBackground(), this.options.flushIntervalMs ?? 1000);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  /** Sends every queued event; resolves once all are stored, rejects when a batch kept failing (it stays queued). */
  flush(): Promise<void> {
    this.clearTimer();
    const run = this.chain.then(() => this.drain());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Flushes and stops: later `add`s throw. */
  async close(): Promise<void> {
    this.closed = true;
    if (typeof process !== 'undefined') process.off('beforeExit', this.onBeforeExit);
    await this.flush();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private flushInBackground(): void {
    this.flush().catch((error) => this.options.onError?.(error));
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async drain(): Promise<void> {
    while (this.pending || this.buffer.length) {
      this.pending ??= { idempotencyKey: crypto.randomUUID(), events: this.buffer.splice(0, this.maxBatch) };
      await this.send(this.pending);
      this.pending = null;
    }
  }

  private async send(batch: Batch): Promise<void> {
    const attempts = Math.max(1, this.options.maxAttempts ?? 5);
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.http.request<IngestResult>('POST', '/v1/events/ingest', { body: { events: batch.events }, idempotencyKey: batch.idempotencyKey });
        this.record(batch, result);
        return;
      } catch (error) {
        if (attempt + 1 >= attempts || !retryable(error)) throw error;
        await sleep(backoffMs(attempt));
      }
    }
  }

  private record(batch: Batch, result: IngestResult): void {
    this.stats.batches++;
    this.stats.accepted += result.accepted;
    this.stats.duplicates += result.duplicates;
    this.stats.rejected += result.errors;
    for (const detail of result.details) this.options.onRejected?.(batch.events[detail.index], detail.reason);
  }
}

/** Failures worth another try: the server or the way to it, not the batch itself. */
function retryable(error: unknown): boolean {
  return error instanceof ConnectionError || error instanceof ServerError || error instanceof RateLimitError;
}
