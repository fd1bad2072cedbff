// The sandbox lifecycle's transition function on both databases, for every (event, status) pair —
// including the edges the API cannot reach: an allowed edge writes the status, its event row, its
// effects and the published event in one transaction, then consumers hear of it; a refused one is a
// 409 that changes nothing.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertType } from '../../src/alerts/contract.js';
import type { Database } from '../../src/core/db/schema.js';
import { HttpError } from '../../src/core/errors.js';
import type { EventPublisher, PublishedEvent } from '../../src/core/events/published.js';
import { SandboxEndings } from '../../src/sandboxes/endings.js';
import { SANDBOX_STATUSES, type SandboxEvent, type SandboxStatus } from '../../src/sandboxes/lifecycle/contract.js';
import { EDGES, isAllowed, type EdgeEventType } from '../../src/sandboxes/lifecycle/edges.js';
import { admitSandbox, SandboxLifecycle } from '../../src/sandboxes/lifecycle/lifecycle.js';
import type { SandboxRow } from '../../src/sandboxes/store.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { sandboxRecord } from '../helpers/sandbox-record.js';

const EDGE_TYPES = Object.keys(EDGES) as EdgeEventType[];

/** The edge table as the issue and docs/architecture.md state it: event → from → to. */
const EXPECTED: Record<EdgeEventType, { from: SandboxStatus[]; to: SandboxStatus[] }> = {
  'sandbox.created': { from: ['creating'], to: ['running', 'creating'] },
  'sandbox.running': { from: ['creating'], to: ['running'] },
  'sandbox.paused': { from: ['running'], to: ['paused'] },
  'sandbox.resumed': { from: ['paused'], to: ['running'] },
  'sandbox.restoring': { from: ['running'], to: ['restoring'] },
  'sandbox.restored': { from: ['restoring'], to: ['running'] },
  'sandbox.error': { from: ['creating', 'running', 'paused', 'restoring'], to: ['error'] },
  'sandbox.destroyed': { from: ['creating', 'running', 'paused', 'restoring', 'error'], to: ['destroyed'] },
};

const REFUSAL_CODE: Partial<Record<EdgeEventType, string>> = {
  'sandbox.paused': 'sandbox_not_running',
  'sandbox.resumed': 'sandbox_not_paused',
  'sandbox.restoring': 'sandbox_not_running',
};

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe('the sandbox edge table', () => {
  it('allows exactly the documented edges', () => {
    for (const type of EDGE_TYPES) {
      for (const from of SANDBOX_STATUSES) {
        for (const to of SANDBOX_STATUSES) {
          const expected = EXPECTED[type].from.includes(from) && EXPECTED[type].to.includes(to);
          expect({ type, from, to, allowed: isAllowed(type, from, to) }).toEqual({ type, from, to, allowed: expected });
        }
      }
    }
  });

  it('lets nothing leave destroyed', () => {
    for (const type of EDGE_TYPES) for (const to of SANDBOX_STATUSES) expect(isAllowed(type, 'destroyed', to)).toBe(false);
  });
});

describe.each(BACKENDS)('sandbox lifecycle transitions on %s', (backend) => {
  let t: TestApp;
  let db: Kysely<Database>;
  let accountId: string;
  let lifecycle: SandboxLifecycle;
  const published: Array<{ event: PublishedEvent; statusInTransaction: string | undefined }> = [];
  const consumed: SandboxEvent[] = [];
  let failPublishing = false;

  beforeAll(async () => {
    t = await startApp(backend);
    db = t.storage.db;
    accountId = (await t.signup()).account.id;
    // Inside the deciding transaction: it sees the new status; a throw undoes the edge.
    const publisher: EventPublisher = {
      async publish(trx, event) {
        if (failPublishing) throw new Error('the publisher failed');
        const row = await trx.selectFrom('sandboxes').select('status').where('id', '=', String(event.data.sandbox_id)).executeTakeFirst();
        published.push({ event, statusInTransaction: row?.status });
      },
    };
    lifecycle = new SandboxLifecycle({
      db,
      alerts: t.services.alerts,
      endings: new SandboxEndings(t.services.alerts, t.services.spend, t.services.outbox),
      publisher,
      log: quiet,
      wakeOutbox: () => {},
    });
    lifecycle.subscribe({ name: 'recorder', onEvent: (event) => void consumed.push(event) });
    lifecycle.subscribe({
      name: 'broken',
      onEvent: () => {
        throw new Error('a consumer failed');
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A sandbox record put straight into `status` (test set-up only: the product has no such path). */
  async function sandboxIn(status: SandboxStatus): Promise<string> {
    const row = sandboxRecord(accountId, { status: 'creating', budget: 1, timeout: 5, host_id: t.config.hostId });
    await db.transaction().execute((trx) => admitSandbox(trx, row as SandboxRow & { status: 'creating' }));
    if (status !== 'creating') await db.updateTable('sandboxes').set({ status }).where('id', '=', row.id).execute();
    return row.id;
  }

  const statusOf = async (id: string) => (await db.selectFrom('sandboxes').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const eventRows = (id: string) => db.selectFrom('sandbox_events').selectAll().where('sandbox_id', '=', id).orderBy('sequence').execute();
  const openIntervals = async (id: string) => (await db.selectFrom('sandbox_usage').selectAll().where('sandbox_id', '=', id).where('ended_at', 'is', null).execute()).length;
  const alertsOf = async (id: string, type: AlertType) => (await db.selectFrom('alerts').selectAll().where('sandbox_id', '=', id).where('type', '=', type).execute()).length;

  const dataFor = (type: EdgeEventType): Record<string, unknown> =>
    type === 'sandbox.error' ? { reason: 'it broke' } : type === 'sandbox.destroyed' ? { reason: 'budget_exceeded' } : type === 'sandbox.paused' ? { reason: 'idle_timeout' } : {};

  for (const type of EDGE_TYPES) {
    for (const from of SANDBOX_STATUSES) {
      for (const to of EXPECTED[type].to) {
        const allowed = EXPECTED[type].from.includes(from);
        it(`${allowed ? 'takes' : 'refuses'} ${type} from ${from}${EXPECTED[type].to.length > 1 ? ` to ${to}` : ''}`, async () => {
          const id = await sandboxIn(from);
          published.length = 0;
          consumed.length = 0;
          const attempt = lifecycle.transition(id, { type, to, data: dataFor(type), changes: type === 'sandbox.error' ? { error: 'it broke' } : {} });
          if (!allowed) {
            const error = await attempt.then(
              () => null,
              (caught: unknown) => caught,
            );
            expect(error).toBeInstanceOf(HttpError);
            expect((error as HttpError).statusCode).toBe(409);
            expect((error as HttpError).code).toBe(REFUSAL_CODE[type] ?? 'sandbox_state_conflict');
            expect((error as Error).message).toContain(`sandbox is ${from}`);
            expect(await statusOf(id)).toBe(from);
            expect(await eventRows(id)).toEqual([]);
            expect(published).toEqual([]);
            return;
          }
          const { row, event } = await attempt;
          expect(row.status).toBe(to);
          expect(await statusOf(id)).toBe(to);
          const rows = await eventRows(id);
          expect(rows).toHaveLength(1);
          expect(rows[0]).toMatchObject({ id: event.id, type, from_status: from, to_status: to, sequence: 1, account_id: accountId });
          expect(JSON.parse(rows[0].data)).toEqual(dataFor(type));
          expect(published).toEqual([{ event: expect.objectContaining({ id: event.id, type, accountId, data: { sandbox_id: id, from, to, ...dataFor(type) } }), statusInTransaction: to }]);
          expect(consumed.map((e) => e.id)).toEqual([event.id]);
          // The edge's effects committed with it.
          if (type === 'sandbox.created' || type === 'sandbox.resumed') expect(await openIntervals(id)).toBe(1);
          if (type === 'sandbox.error') expect(await alertsOf(id, 'sandbox_error')).toBe(1);
          if (type === 'sandbox.paused') expect(await alertsOf(id, 'idle_timeout')).toBe(1);
          if (type === 'sandbox.destroyed') expect(await alertsOf(id, 'budget_exceeded')).toBe(1);
        });
      }
    }
  }

  it('closes the metering interval it opened: created, paused, resumed, destroyed at the decision time', async () => {
    const id = await sandboxIn('creating');
    await lifecycle.transition(id, { type: 'sandbox.created', to: 'running' });
    expect(await openIntervals(id)).toBe(1);
    await lifecycle.transition(id, { type: 'sandbox.paused', data: { reason: 'request' } });
    expect(await openIntervals(id)).toBe(0);
    await lifecycle.transition(id, { type: 'sandbox.resumed' });
    expect(await openIntervals(id)).toBe(1);
    const decidedAt = new Date(Date.now() - 1000).toISOString();
    await lifecycle.transition(id, { type: 'sandbox.destroyed', decidedAt, data: { reason: 'deleted' } });
    const intervals = await db.selectFrom('sandbox_usage').selectAll().where('sandbox_id', '=', id).orderBy('started_at').execute();
    expect(intervals).toHaveLength(2);
    expect(intervals[1].ended_at).toBe(decidedAt);
    expect((await eventRows(id)).map((row) => [row.sequence, row.type])).toEqual([
      [1, 'sandbox.created'],
      [2, 'sandbox.paused'],
      [3, 'sandbox.resumed'],
      [4, 'sandbox.destroyed'],
    ]);
  });

  it('undoes the whole edge when publishing fails inside its transaction', async () => {
    const id = await sandboxIn('creating');
    failPublishing = true;
    try {
      await expect(lifecycle.transition(id, { type: 'sandbox.created', to: 'running' })).rejects.toThrow('the publisher failed');
    } finally {
      failPublishing = false;
    }
    expect(await statusOf(id)).toBe('creating');
    expect(await eventRows(id)).toEqual([]);
    expect(await openIntervals(id)).toBe(0);
  });

  it('records a budget threshold as an event without a status change, with the alert bit', async () => {
    const id = await sandboxIn('running');
    const row = (await db.selectFrom('sandboxes').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as SandboxRow;
    const event = await lifecycle.budgetThresholdCrossed(row, { bit: 1, data: { threshold: 'budget_warning', spend_usd: 0.8, budget: 1 } }, async () => {});
    expect(event).toMatchObject({ type: 'sandbox.budget_threshold', from: null, to: null, data: { threshold: 'budget_warning' } });
    expect(await statusOf(id)).toBe('running');
    expect((await db.selectFrom('sandboxes').select('budget_alerts_raised').where('id', '=', id).executeTakeFirstOrThrow()).budget_alerts_raised).toBe(1);
    expect((await eventRows(id)).map((r) => [r.type, r.from_status, r.to_status])).toEqual([['sandbox.budget_threshold', null, null]]);
  });

  it('answers null instead of a 409 for a caller racing another change (onlyFrom, transitionIfAllowed)', async () => {
    const id = await sandboxIn('destroyed');
    expect(await lifecycle.transition(id, { type: 'sandbox.error', onlyFrom: ['running'], data: { reason: 'x' } })).toBeNull();
    expect(await lifecycle.transitionIfAllowed(id, { type: 'sandbox.error', data: { reason: 'x' } })).toBeNull();
    expect(await eventRows(id)).toEqual([]);
  });
});
