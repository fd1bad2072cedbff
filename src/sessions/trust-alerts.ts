// Raises trust_low / trust_critical when a session's score falls below the account's rule thresholds
// (70 and 50 unless changed). A fall is recorded in the ingest transaction (trust_alert_pending); right
// after the commit the rules are checked and each due alert is raised in one transaction with the mark
// that it was raised, so each is raised once. A check that fails, or a crash before it, is retried by
// the sweeper.
import type { Kysely } from 'kysely';
import type { AlertRaiser, AlertThresholds, AlertType } from '../alerts/contract.js';
import type { SqlDialect } from '../core/db/dialect.js';
import type { Database } from '../core/db/schema.js';
import * as store from './store.js';
import type { Logger } from '../core/logging.js';

export type TrustAlertRaiser = AlertRaiser & AlertThresholds;
export type TrustThresholds = Awaited<ReturnType<AlertThresholds['thresholds']>>;

/** Bit of `trust_alerts_raised` per alert type. */
const TRUST_ALERTS: { type: AlertType; bit: number }[] = [
  { type: 'trust_low', bit: 1 },
  { type: 'trust_critical', bit: 2 },
];

/** The trust alerts a session with `score` still needs: enabled rules whose threshold it is below, not yet raised. */
export function trustAlertsDue(raised: number, score: number, thresholds: TrustThresholds): { type: AlertType; bit: number; below: number }[] {
  return TRUST_ALERTS.flatMap(({ type, bit }) => {
    const rule = thresholds[type];
    if (!rule?.enabled || rule.threshold === null || raised & bit || score >= rule.threshold) return [];
    return [{ type, bit, below: rule.threshold }];
  });
}

export class TrustAlerts {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly alerts: TrustAlertRaiser | null,
    private readonly log: Logger,
  ) {}

  /** Checks the session's latest score against the account's rules; on failure it stays pending. */
  async check(sessionKey: string, accountId: string): Promise<void> {
    if (!this.alerts) return;
    try {
      const thresholds = await this.alerts.thresholds(accountId);
      await this.db.transaction().execute(async (trx) => {
        const session = await store.lockSessionByKey(trx, this.dialect, sessionKey);
        if (!session?.trust_alert_pending) return;
        let raised = session.trust_alerts_raised;
        const due = trustAlertsDue(raised, session.trust_score, thresholds);
        const rules = due.length ? [...new Set((await store.listFindings(trx, session.key, 1000)).map((f) => f.rule))] : [];
        for (const alert of due) {
          await this.alerts!.raise(
            {
              accountId: session.account_id,
              type: alert.type,
              resource: { kind: 'session', id: session.id },
              sandboxId: session.sandbox_id,
              message: `trust score of session ${session.id} fell to ${session.trust_score} (below ${alert.below}): ${rules.join(', ')}`,
              details: { session_id: session.id, trust_score: session.trust_score, threshold: alert.below, rules },
            },
            { db: trx },
          );
          raised |= alert.bit;
        }
        await store.markTrustAlertsChecked(trx, session.key, raised);
      });
    } catch (error) {
      this.log.warn({ err: error, session_key: sessionKey }, 'checking trust alerts failed; the sweeper retries');
    }
  }

  /** Retries checks left pending (a failure, or a crash right after an ingest committed). */
  async sweep(): Promise<void> {
    if (!this.alerts) return;
    for (const session of await store.sessionsAwaitingTrustAlerts(this.db, 100)) await this.check(session.key, session.account_id);
  }
}
