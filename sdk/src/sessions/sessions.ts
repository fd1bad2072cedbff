// paddock.sessions: agent sessions (created by their first event), their events (replay), summaries, and
// `ingest`, a batching sender of a session's events.
import type { Http } from '../core/http.js';
import { segment } from '../core/paths.js';
import type { QueryOf, ResponseOf } from '../core/types.js';
import { EventIngester, type IngestOptions, type IngestResult, type SessionEvent } from './event-ingester.js';

export type Session = ResponseOf<'/v1/sessions/{id}', 'get'>;
export type ReplayPage = ResponseOf<'/v1/sessions/{id}/replay', 'get'>;
export type ReplayEvent = ReplayPage['events'][number];
export type SessionSummary = ResponseOf<'/v1/sessions/{id}/replay/summary', 'get'>;

export interface CreateSessionParams {
  /** 1-128 of `[A-Za-z0-9._:-]`; default a new UUID. */
  id?: string;
  /** The sandbox the session records (or `pipelineRunId`). */
  sandboxId?: string;
  pipelineRunId?: string;
  agentType?: string;
  model?: string;
}

export class Sessions {
  constructor(private readonly http: Http) {}

  /**
   * Starts a session: Paddock creates one with its first event, so this sends a `lifecycle` `started` event
   * (with `agent_type` and `model`) and answers the new session.
   */
  async create(params: CreateSessionParams): Promise<Session> {
    const id = params.id ?? crypto.randomUUID();
    const owner = params.pipelineRunId ? { pipeline_run_id: params.pipelineRunId } : { sandbox_id: params.sandboxId };
    const payload = { status: 'started', ...(params.agentType ? { agent_type: params.agentType } : {}), ...(params.model ? { model: params.model } : {}) };
    const result = await this.send([{ ...owner, session_id: id, id: crypto.randomUUID(), type: 'lifecycle', timestamp: new Date().toISOString(), payload }]);
    if (result.errors) throw new Error(`the session could not be started: ${result.details.map((detail) => detail.reason).join('; ')}`);
    return this.get(id);
  }

  /** Totals over the session's events: tokens, cost, trust score, count, duration. */
  get(sessionId: string): Promise<Session> {
    return this.http.request('GET', `/v1/sessions/${segment(sessionId)}`);
  }

  /** The account's sessions, newest first; filter by `sandbox_id`, `pipeline_run_id`, `status`. */
  list(query: QueryOf<'/v1/sessions', 'get'> = {}): Promise<Session[]> {
    return this.http.request('GET', '/v1/sessions', { query });
  }

  /** One page of the session's events in order (`after_seq`, `limit` ≤ 1000, `type`). */
  replay(sessionId: string, query: QueryOf<'/v1/sessions/{id}/replay', 'get'> = {}): Promise<ReplayPage> {
    return this.http.request('GET', `/v1/sessions/${segment(sessionId)}/replay`, { query });
  }

  /** Every event of the session (or of one `type`), in order, page after page. */
  async *events(sessionId: string, options: { type?: ReplayEvent['type']; afterSeq?: number; pageSize?: number } = {}): AsyncGenerator<ReplayEvent> {
    let after = options.afterSeq ?? 0;
    for (;;) {
      const page = await this.replay(sessionId, { after_seq: after, limit: options.pageSize ?? 1000, type: options.type });
      yield* page.events;
      if (!page.has_more) return;
      after = page.next_seq;
    }
  }

  /** Counts per type, time range, cost and the trust findings. */
  summary(sessionId: string): Promise<SessionSummary> {
    return this.http.request('GET', `/v1/sessions/${segment(sessionId)}/replay/summary`);
  }

  /** Sends events as they are (one request, ≤ 1000): for batching with retries use `ingest`. */
  send(events: unknown[]): Promise<IngestResult> {
    return this.http.request('POST', '/v1/events/ingest', { body: { events } });
  }

  /** A batching sender of this session's events: `add(event)`, `flush()`, `close()`. */
  ingest(sessionId: string, options: IngestOptions = {}): EventIngester {
    return new EventIngester(this.http, sessionId, options);
  }
}

export type { SessionEvent, IngestOptions, IngestResult };
