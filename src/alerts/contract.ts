// What other features need to raise an alert, without depending on how alerts are stored or delivered.
// The alerts feature implements `AlertRaiser`; sessions, sandboxes and budgets call it.
export { ALERT_SEVERITIES, ALERT_TYPES, type AlertSeverity, type AlertType } from '../core/db/column-values.js';
import type { AlertSeverity, AlertType } from '../core/db/column-values.js';

/** Severity of each type, exactly as the spec's Alerts table. */
export const ALERT_SEVERITY: Record<AlertType, AlertSeverity> = {
  budget_warning: 'warning',
  budget_critical: 'critical',
  budget_exceeded: 'critical',
  trust_low: 'warning',
  trust_critical: 'critical',
  sandbox_error: 'error',
  idle_timeout: 'info',
  quota_warning: 'warning',
  quota_exceeded: 'critical',
  payment_failed: 'error',
};

export interface RaiseAlert {
  accountId: string;
  type: AlertType;
  /** The thing the alert is about: at most one open alert exists per (type, resource). */
  resource: { kind: 'sandbox' | 'session' | 'run' | 'account'; id: string };
  sandboxId: string | null;
  message: string;
  details?: Record<string, unknown>;
  /** A new occurrence (the next billing period's quota alert): an open alert of the same type and resource is resolved first, so this one is raised and delivered. */
  supersedesOpen?: boolean;
}

export interface RaiseOptions {
  /**
   * A Kysely transaction (or database) to write through, so the alert commits with the change that
   * caused it. Typed loosely to keep this contract free of storage types.
   */
  db?: unknown;
}

export interface AlertRaiser {
  /** Records the alert and queues its notifications; null when the account's rule for the type is disabled or one is already open. */
  raise(alert: RaiseAlert, options?: RaiseOptions): Promise<{ id: string } | null>;
}

/**
 * The account's rule settings, for features that decide when to raise (budgets, trust scoring).
 * Budget thresholds are fractions of the sandbox budget (0.0-1.0: warning 0.8, critical 0.95,
 * exceeded 1.0); trust thresholds are trust scores (0-100: `trust_low` 70, `trust_critical` 50),
 * raised when a score drops below them. Types without a threshold have `threshold: null`.
 */
export interface AlertThresholds {
  thresholds(accountId: string): Promise<Record<AlertType, { enabled: boolean; threshold: number | null }>>;
}
