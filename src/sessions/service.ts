// Session rules: ingest (per-event validation, account and sandbox checks, idempotency, one transaction
// per batch), the server's own command recordings, replay, summaries and the inactivity timeout.
import { randomUUID } from 'node:crypto';
import type { Kysely, Insertable } from 'kysely';
import type { SqlDialect } from '../core/db/dialect.js';
import type { Database, SessionsTable } from '../core/db/schema.js';
import { Invalid, NotFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/time.js';
import type { SandboxDirectory } from '../sandboxes/directory.js';
import { commandEvent, EXEC_AGENT_TYPE, type CommandRecord } from './command-recording.js';
import { MAX_EVENTS_PER_REQUEST, SESSION_ID_PATTERN, parseEvent, type EventType, type IngestedEvent } from './ingest-validation.js';
import type { PriceTable } from './pricing.js';
import { PIPELINE_AGENT_TYPE, runTimelineEvent, type RunEvent } from './run-events.js';
import { newSessionRow, ownerMismatch, sessionWindow } from './session-rows.js';
import * as store from './store.js';
import { appendEvents, countColumn, type SessionRow, type TimelineEvent, type SessionStatus } from './timeline.js';
import { TrustAlerts, type TrustAlertRaiser } from './trust-alerts.js';
import { scoreFindings, trustScore, type TrustRuleName } from './trust.js';
import { countsByType, durationMs, findingView, replayPageJson, sessionView } from './views.js';
import type { Logger } from '../core/logging.js';
import type { Tx } from '../core/db/handles.js';

/** Sequences are PostgreSQL integers; a page bound past this would not fit. */
const MAX_SEQUENCE = 2 ** 31 - 1 - 2 * 1000;

export interface IngestResult {
  accepted: number;
  errors: number;
  duplicates: number;
  details: { index: number; reason: string }[];
}

/** Which sandboxes a run's stage attempts created (the pipelines feature answers). */
export interface RunSandboxSource {
  of(runId: string): Promise<string[]>;
}

/** The sandbox compute a session is charged: the sandbox's metered cost inside the session's span. */
export interface SessionComputeSource {
  computeCostUsd(sandboxIds: readonly string[], options: { window: { fromMs: number; toMs: number | null } }): Promise<number>;
}

export interface ReplayQuery {
  afterSeq: number;
  limit: number;
  type?: EventType;
}

export class SessionService {
  private readonly trustAlerts: TrustAlerts;
  private readonly checking = new Set<Promise<void>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly sandboxes: SandboxDirectory,
    private readonly runSandboxes: RunSandboxSource,
    /** The alerts feature; null raises no trust alerts (falls stay recorded as pending). */
    alerts: TrustAlertRaiser | null,
    private readonly prices: PriceTable,
    private readonly inactivityTimeoutSeconds: number,
    log: Logger,
    /** Compute metering; without it `compute_cost_usd` stays 0. */
    private readonly compute: SessionComputeSource | null = null,
  ) {
    this.trustAlerts = new TrustAlerts(db, dialect, alerts, log);
  }

  async ingest(accountId: string, raw: unknown[]): Promise<IngestResult> {
    if (raw.length > MAX_EVENTS_PER_REQUEST) throw new Invalid('body.events', `holds ${raw.length} events; the limit is ${MAX_EVENTS_PER_REQUEST} events per request`);
    const nowMs = Date.now();
    const details: IngestResult['details'] = [];
    const parsed: { index: number; event: IngestedEvent }[] = [];
    raw.forEach((item, index) => {
      const result = parseEvent(item, nowMs);
      if (typeof result === 'string') details.push({ index, reason: result });
      else parsed.push({ index, event: result });
    });

    const owned = await this.sandboxes.ownedBy(accountId, [...new Set(parsed.flatMap((p) => (p.event.sandboxId ? [p.event.sandboxId] : [])))]);
    const bySession = new Map<string, { index: number; event: IngestedEvent }[]>();
    for (const item of parsed) {
      if (item.event.sandboxId && !owned.has(item.event.sandboxId)) {
        details.push({ index: item.index, reason: `sandbox_id ${item.event.sandboxId} is not a sandbox of this account` });
        continue;
      }
      const group = bySession.get(item.event.sessionId);
      if (group) group.push(item);
      else bySession.set(item.event.sessionId, [item]);
    }

    let accepted = 0;
    let duplicates = 0;
    const alerting: SessionRow[] = [];
    const now = nowIso();
    if (bySession.size) {
      await this.db.transaction().execute(async (trx) => {
        // A fixed lock order, so two batches touching the same sessions cannot deadlock on PostgreSQL.
        for (const sessionId of [...bySession.keys()].sort()) {
          const items = bySession.get(sessionId)!;
          // Sandbox sessions are created by their first event; a run's session only with its run.
          const creator = items.find(({ event }) => event.sandboxId !== null);
          if (creator) await store.ensureSession(trx, newSessionRow(accountId, sessionId, { sandboxId: creator.event.sandboxId!, pipelineRunId: null }, now));
          const session = await store.lockSession(trx, this.dialect, accountId, sessionId);
          if (!session) {
            for (const { index, event } of items) details.push({ index, reason: `session ${sessionId} is not the session of pipeline run ${event.pipelineRunId}: use the run's session_id` });
            continue;
          }
          const bound = items.filter(({ index, event }) => {
            const reason = ownerMismatch(session, event);
            if (reason) details.push({ index, reason });
            return reason === null;
          });
          const clientIds = bound.flatMap(({ event }) => (event.clientId ? [event.clientId] : []));
          const seen = clientIds.length ? await store.storedClientIds(trx, session.key, clientIds) : new Set<string>();
          const fresh: TimelineEvent[] = [];
          for (const { event } of bound) {
            accepted++;
            if (event.clientId) {
              if (seen.has(event.clientId)) {
                duplicates++;
                continue;
              }
              seen.add(event.clientId);
            }
            fresh.push(event);
          }
          const updated = await this.append(trx, session, fresh, now);
          if (updated.trust_alert_pending) alerting.push(updated);
        }
      });
    }
    for (const session of alerting) await this.trustAlerts.check(session.key, session.account_id);
    details.sort((a, b) => a.index - b.index);
    return { accepted, errors: details.length, duplicates, details };
  }

  /** Writes events after the session's last one, with their findings and the new totals. */
  private async append(trx: Tx, session: SessionRow, events: TimelineEvent[], now: string): Promise<SessionRow> {
    if (!events.length) return session;
    const { rows, changes, findings } = appendEvents(session, events, this.prices, now);
    await store.insertEvents(trx, this.dialect, rows);
    if (findings.length) {
      const tally = new Map((await store.ruleTally(trx, session.key)).map((r) => [r.rule as TrustRuleName, { count: Number(r.count), penalty: Number(r.penalty) }]));
      const scored = scoreFindings(findings, tally);
      await store.insertFindings(
        trx,
        scored.map((f) => ({ session_key: session.key, sequence: f.sequence, rule: f.rule, severity: f.severity, weight: f.weight, penalty: f.penalty, evidence: f.evidence, created_at: now })),
      );
      changes.trust_score = trustScore(tally);
      if (changes.trust_score < session.trust_score) changes.trust_alert_pending = 1;
    }
    await store.updateSession(trx, session.key, changes);
    return { ...session, ...changes } as SessionRow;
  }

  /**
   * Records a command run through the API in the sandbox's active session, or a new one. Awaited by exec
   * before it answers: one short transaction, so an answered command is always in the replay.
   */
  async recordCommand(record: CommandRecord): Promise<void> {
    const now = nowIso();
    const event = commandEvent(record);
    const updated = await this.db.transaction().execute(async (trx) => {
      let session = await store.lockActiveSession(trx, this.dialect, record.sandboxId);
      if (!session) {
        // Creating: one process at a time per sandbox, and look again once it is ours.
        await store.lockSandboxSessions(trx, this.dialect, record.sandboxId);
        session = await store.lockActiveSession(trx, this.dialect, record.sandboxId);
      }
      if (!session) {
        const id = newId('ses');
        await store.ensureSession(trx, newSessionRow(record.accountId, id, { sandboxId: record.sandboxId, pipelineRunId: null }, now, EXEC_AGENT_TYPE));
        session = (await store.lockSession(trx, this.dialect, record.accountId, id))!;
      }
      return this.append(trx, session, [event], now);
    });
    if (updated.trust_alert_pending) await this.trustAlerts.check(updated.key, updated.account_id);
  }

  /** Creates the run's session inside the transaction that creates the run (after the run row: the session references it). */
  async openRunSession(trx: Tx, run: { accountId: string; runId: string; sessionId: string }, now: string): Promise<void> {
    await trx
      .insertInto('sessions')
      .values(newSessionRow(run.accountId, run.sessionId, { sandboxId: null, pipelineRunId: run.runId }, now, PIPELINE_AGENT_TYPE))
      .execute();
  }

  /**
   * Appends a pipeline lifecycle event to the run's session inside the transition's transaction (which
   * holds the run's lock). A run created before run sessions existed has none: nothing is recorded.
   * A trust fall is checked at once but outside that transaction: the check locks the session row, which
   * the transition holds until it commits, so it reads the fall once committed (or nothing, on a rollback).
   */
  async recordRunEvent(trx: Tx, runId: string, event: RunEvent): Promise<void> {
    const session = await store.lockRunSession(trx, this.dialect, runId);
    if (!session) return;
    const updated = await this.append(trx, session, [runTimelineEvent(event)], nowIso());
    if (updated.trust_alert_pending && !session.trust_alert_pending) {
      const check = this.trustAlerts.check(updated.key, updated.account_id).finally(() => this.checking.delete(check));
      this.checking.add(check);
    }
  }

  /** Resolves once the trust checks started by run events are done (before the database closes). */
  async settled(): Promise<void> {
    await Promise.all(this.checking);
  }

  /** Sessions of the account, filtered; with pipelineRunId: the run's own session and those of the sandboxes its stages created. */
  async list(accountId: string, filter: store.SessionFilter, page: { limit: number; offset: number }) {
    const runSandboxIds = filter.pipelineRunId !== undefined ? await this.runSandboxes.of(filter.pipelineRunId) : [];
    const rows = await store.listSessionsOf(this.db, accountId, filter, page, runSandboxIds);
    return Promise.all(rows.map(async (row) => sessionView(await this.withComputeCost(row))));
  }

  async get(accountId: string, id: string): Promise<SessionRow> {
    // An id no event could have created names no session (and a NUL byte would upset PostgreSQL).
    const row = SESSION_ID_PATTERN.test(id) ? await store.findSession(this.db, accountId, id) : undefined;
    if (!row) throw new NotFound('session');
    return row;
  }

  /** The sandbox whose session this is; null for a run's session or no session of the account. */
  async sandboxOf(accountId: string, id: string): Promise<string | null> {
    const row = SESSION_ID_PATTERN.test(id) ? await store.findSession(this.db, accountId, id) : undefined;
    return row?.sandbox_id ?? null;
  }

  async view(accountId: string, id: string) {
    return sessionView(await this.withComputeCost(await this.get(accountId, id)));
  }

  async listForSandbox(accountId: string, sandboxId: string, options: { limit: number; offset: number; status?: SessionStatus }) {
    if (!(await this.sandboxes.exists(accountId, sandboxId))) throw new NotFound('sandbox');
    const rows = await store.listSessions(this.db, accountId, sandboxId, options);
    return Promise.all(rows.map(async (row) => sessionView(await this.withComputeCost(row))));
  }

  /** The row with `compute_cost_usd` metered now: it grows while the session is active. */
  private async withComputeCost(row: SessionRow): Promise<SessionRow> {
    const window = sessionWindow(row);
    if (!this.compute || !window) return row;
    // A run's session is charged the compute of the sandboxes its stages created.
    const sandboxIds = row.sandbox_id !== null ? [row.sandbox_id] : await this.runSandboxes.of(row.pipeline_run_id!);
    return { ...row, compute_cost_usd: await this.compute.computeCostUsd(sandboxIds, { window }) };
  }

  /** LLM cost of each sandbox's sessions, for sandbox spend and budgets; `db` reads inside the caller's transaction. */
  async llmCostUsd(sandboxIds: readonly string[], db: Kysely<Database> = this.db): Promise<Map<string, number>> {
    return store.llmCostBySandbox(db, sandboxIds);
  }

  /** LLM cost, lowest trust score and number of a run's sessions: its own and those of `sandboxIds` (its stages' sandboxes), for gates. */
  /** LLM cost per UTC day for billing: a session's cost counts on the day it was first recorded (server time, see docs/decisions.md). */
  llmCostPerDay(accountId: string, window: { start: string; end: string }): Promise<Map<string, number>> {
    return store.llmCostPerDay(this.db, accountId, window.start, window.end);
  }

  async runTotals(runId: string, sandboxIds: readonly string[]) {
    return store.runTotals(this.db, runId, sandboxIds);
  }

  /** A replay page, as the JSON text the endpoint answers. */
  async replay(accountId: string, id: string, query: ReplayQuery): Promise<string> {
    const session = await this.get(accountId, id);
    const rows = await store.replayPage(this.db, session.key, Math.min(query.afterSeq, MAX_SEQUENCE), query.limit, query.type);
    const hasMore = rows.length > query.limit;
    if (hasMore) rows.pop();
    const lastSequence = rows.at(-1)?.sequence ?? 0;
    // On the last page every event up to the session's count (read before the page) has been seen, so
    // polling resumes there even when a type filter matched none of them or after_seq was past the end.
    const nextSeq = hasMore ? lastSequence : Math.max(lastSequence, session.event_count);
    return replayPageJson(session.id, rows, { hasMore, nextSeq, total: query.type ? session[countColumn(query.type)] : session.event_count });
  }

  async summary(accountId: string, id: string) {
    const session = await this.withComputeCost(await this.get(accountId, id));
    const findings = await store.listFindings(this.db, session.key, 1000);
    const view = sessionView(session);
    return {
      session_id: session.id,
      sandbox_id: session.sandbox_id,
      pipeline_run_id: session.pipeline_run_id,
      status: session.status,
      event_count: session.event_count,
      counts: countsByType(session),
      first_event_at: session.started_at,
      last_event_at: session.last_event_at,
      duration_ms: durationMs(session),
      tokens_in: view.tokens_in,
      tokens_out: view.tokens_out,
      cost_usd: view.cost_usd,
      llm_cost_usd: view.llm_cost_usd,
      compute_cost_usd: view.compute_cost_usd,
      trust_score: session.trust_score,
      findings: findings.map(findingView),
    };
  }

  /** Ends sessions idle past the timeout and retries trust alerts left pending. */
  async sweep(now = Date.now()): Promise<void> {
    await store.timeOutInactive(this.db, new Date(now - this.inactivityTimeoutSeconds * 1000).toISOString(), new Date(now).toISOString());
    await this.trustAlerts.sweep();
  }
}
