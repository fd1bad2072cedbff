// Alerts: raising (one open alert per type and resource, only when the account's rule is enabled, with
// its notification and channel deliveries in the same transaction), listing, resolving, and the rules.
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import { Invalid, NotFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Outbox } from '../core/outbox/outbox.js';
import { nowIso } from '../core/time.js';
import { ALERT_SEVERITY, ALERT_TYPES, type AlertRaiser, type AlertThresholds, type AlertType, type RaiseAlert, type RaiseOptions } from './contract.js';
import type { NotificationService } from './notifications/service.js';
import { DEFAULT_CHANNELS, RULE_DEFAULTS, thresholdProblem, type Channel } from './rules.js';
import * as store from './store.js';
import { ALERT_TITLES, alertView, ruleView } from './views.js';
import type { Tx } from '../core/db/handles.js';

const MESSAGE_MAX_CHARS = 2000;

export interface RuleUpdate {
  enabled?: boolean;
  threshold?: number | null;
  channels?: Channel[];
}

/** Runs `work` in `db` when it already is a transaction, else in a new one. */
function inTransaction<T>(db: Kysely<Database>, work: (trx: Tx) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Tx) : db.transaction().execute(work);
}

export class AlertService implements AlertRaiser, AlertThresholds {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly notifications: NotificationService,
    private readonly outbox: Outbox,
  ) {}

  async raise(alert: RaiseAlert, options: RaiseOptions = {}): Promise<{ id: string } | null> {
    if (!ALERT_TYPES.includes(alert.type)) throw new Error(`unknown alert type ${alert.type}`);
    const db = (options.db as Kysely<Database> | undefined) ?? this.db;
    const raised = await inTransaction(db, async (trx) => {
      const rule = await this.rule(trx, alert.accountId, alert.type);
      if (rule.enabled !== 1) return null;
      if (alert.supersedesOpen) await store.resolveOpenAlert(trx, alert.accountId, alert.type, alert.resource, nowIso());
      const row: store.AlertRow = {
        id: newId('alr'),
        account_id: alert.accountId,
        type: alert.type,
        severity: ALERT_SEVERITY[alert.type],
        message: alert.message.slice(0, MESSAGE_MAX_CHARS),
        sandbox_id: alert.sandboxId,
        resource_kind: alert.resource.kind,
        resource_id: alert.resource.id,
        details: JSON.stringify(alert.details ?? {}),
        resolved: 0,
        resolved_at: null,
        created_at: nowIso(),
      };
      if (!(await store.insertOpenAlert(trx, row))) return null;
      await this.notifications.create(trx, {
        accountId: alert.accountId,
        alertId: row.id,
        type: alert.type,
        severity: ALERT_SEVERITY[alert.type],
        title: ALERT_TITLES[alert.type],
        message: row.message,
        sandboxId: alert.sandboxId,
        channels: JSON.parse(rule.channels) as Channel[],
        event: { type: 'alert.raised', data: alertView(row) },
      });
      return { id: row.id };
    });
    // When the caller owns the transaction it may not have committed yet; the worker's poll finds the rows then.
    if (raised) this.outbox.wake();
    return raised;
  }

  async list(accountId: string, filter: Omit<store.AlertFilter, 'accountId'>, page: { limit: number; offset: number }) {
    const query = { accountId, ...filter };
    const [rows, total] = await Promise.all([store.listAlerts(this.db, query, page), store.countAlerts(this.db, query)]);
    return { alerts: rows.map(alertView), total };
  }

  async get(accountId: string, id: string) {
    const row = await store.findAlert(this.db, accountId, id);
    if (!row) throw new NotFound('alert');
    return alertView(row);
  }

  /** Marks the alert resolved (idempotent: a resolved alert keeps its first resolved_at). */
  async resolve(accountId: string, id: string) {
    await store.resolveAlert(this.db, accountId, id, nowIso());
    return this.get(accountId, id);
  }

  /** Resolves the open alert of `type` for `resource`, if any: for features that see a condition clear. */
  async resolveOpen(accountId: string, type: AlertType, resource: RaiseAlert['resource']): Promise<void> {
    await store.resolveOpenAlert(this.db, accountId, type, resource, nowIso());
  }

  async rules(accountId: string) {
    const rows = await this.ensureRules(this.db, accountId);
    return ALERT_TYPES.map((type) => ruleView(rows.find((row) => row.type === type)!));
  }

  async updateRule(accountId: string, id: string, update: RuleUpdate) {
    await this.ensureRules(this.db, accountId);
    const row = await store.findRule(this.db, accountId, id);
    if (!row) throw new NotFound('alert rule');
    const type = row.type;
    if (update.threshold !== undefined) {
      const problem = thresholdProblem(type, update.threshold);
      if (problem) throw new Invalid('body.threshold', problem);
    }
    await store.updateRule(this.db, id, {
      ...(update.enabled !== undefined ? { enabled: update.enabled ? 1 : 0 } : {}),
      ...(update.threshold !== undefined ? { threshold: update.threshold } : {}),
      ...(update.channels !== undefined ? { channels: JSON.stringify(update.channels) } : {}),
      updated_at: nowIso(),
    });
    return ruleView((await store.findRule(this.db, accountId, id))!);
  }

  async thresholds(accountId: string) {
    const rows = await this.ensureRules(this.db, accountId);
    const result = {} as Record<AlertType, { enabled: boolean; threshold: number | null }>;
    for (const row of rows) result[row.type] = { enabled: row.enabled === 1, threshold: row.threshold === null ? null : Number(row.threshold) };
    return result;
  }

  private async rule(db: Kysely<Database>, accountId: string, type: AlertType): Promise<store.RuleRow> {
    const row = await store.findRuleByType(db, accountId, type);
    if (row) return row;
    return (await this.ensureRules(db, accountId)).find((r) => r.type === type)!;
  }

  /** Every account has one rule per type, created with the defaults the first time any is needed. */
  private async ensureRules(db: Kysely<Database>, accountId: string): Promise<store.RuleRow[]> {
    const rows = await store.listRules(db, accountId);
    if (rows.length === ALERT_TYPES.length) return rows;
    const now = nowIso();
    const missing = ALERT_TYPES.filter((type) => !rows.some((row) => row.type === type)).map((type) => ({
      id: newId('rul'),
      account_id: accountId,
      type,
      enabled: 1,
      threshold: RULE_DEFAULTS[type].threshold,
      channels: JSON.stringify(DEFAULT_CHANNELS),
      created_at: now,
      updated_at: now,
    }));
    await store.insertMissingRules(db, missing);
    return store.listRules(db, accountId);
  }
}
