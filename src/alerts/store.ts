// SQL for alerts and alert rules.
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { AlertRulesTable, AlertsTable, Database } from '../core/db/schema.js';
import type { AlertSeverity, AlertType } from './contract.js';

export type AlertRow = Selectable<AlertsTable>;
export type RuleRow = Selectable<AlertRulesTable>;

/** Inserts the alert unless one is open for its (type, resource); true when it was inserted. */
export async function insertOpenAlert(db: Kysely<Database>, row: AlertRow): Promise<boolean> {
  const inserted = await db
    .insertInto('alerts')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export interface AlertFilter {
  accountId: string;
  resolved?: boolean;
  type?: AlertType;
  sandboxId?: string;
  severity?: AlertSeverity;
}

function filtered(db: Kysely<Database>, filter: AlertFilter) {
  return db
    .selectFrom('alerts')
    .where('account_id', '=', filter.accountId)
    .$if(filter.resolved !== undefined, (q) => q.where('resolved', '=', filter.resolved ? 1 : 0))
    .$if(filter.type !== undefined, (q) => q.where('type', '=', filter.type!))
    .$if(filter.sandboxId !== undefined, (q) => q.where('sandbox_id', '=', filter.sandboxId!))
    .$if(filter.severity !== undefined, (q) => q.where('severity', '=', filter.severity!));
}

export function listAlerts(db: Kysely<Database>, filter: AlertFilter, page: { limit: number; offset: number }) {
  return filtered(db, filter).selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function countAlerts(db: Kysely<Database>, filter: AlertFilter): Promise<number> {
  const row = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findAlert(db: Kysely<Database>, accountId: string, id: string) {
  return db.selectFrom('alerts').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export function resolveAlert(db: Kysely<Database>, accountId: string, id: string, now: string) {
  return db.updateTable('alerts').set({ resolved: 1, resolved_at: now }).where('id', '=', id).where('account_id', '=', accountId).where('resolved', '=', 0).execute();
}

export function resolveOpenAlert(db: Kysely<Database>, accountId: string, type: AlertType, resource: { kind: string; id: string }, now: string) {
  return db
    .updateTable('alerts')
    .set({ resolved: 1, resolved_at: now })
    .where('account_id', '=', accountId)
    .where('type', '=', type)
    .where('resource_kind', '=', resource.kind)
    .where('resource_id', '=', resource.id)
    .where('resolved', '=', 0)
    .execute();
}

export function listRules(db: Kysely<Database>, accountId: string) {
  return db.selectFrom('alert_rules').selectAll().where('account_id', '=', accountId).execute();
}

/** Adds the rules the account does not have yet; concurrent callers add each rule once. */
export async function insertMissingRules(db: Kysely<Database>, rows: RuleRow[]): Promise<void> {
  if (!rows.length) return;
  await db
    .insertInto('alert_rules')
    .values(rows)
    .onConflict((oc) => oc.columns(['account_id', 'type']).doNothing())
    .execute();
}

export function findRule(db: Kysely<Database>, accountId: string, id: string) {
  return db.selectFrom('alert_rules').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export function findRuleByType(db: Kysely<Database>, accountId: string, type: AlertType) {
  return db.selectFrom('alert_rules').selectAll().where('account_id', '=', accountId).where('type', '=', type).executeTakeFirst();
}

export function updateRule(db: Kysely<Database>, id: string, changes: Updateable<AlertRulesTable>) {
  return db.updateTable('alert_rules').set(changes).where('id', '=', id).execute();
}
