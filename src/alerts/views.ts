// Turns alert and rule rows into the shapes the API returns, and names each alert type for people.
import type { AlertType } from './contract.js';
import { RULE_DEFAULTS } from './rules.js';
import type { AlertRow, RuleRow } from './store.js';

export const ALERT_TITLES: Record<AlertType, string> = {
  budget_warning: 'Budget warning',
  budget_critical: 'Budget almost spent',
  budget_exceeded: 'Budget exceeded',
  trust_low: 'Low trust score',
  trust_critical: 'Critical trust score',
  sandbox_error: 'Sandbox error',
  idle_timeout: 'Sandbox paused for inactivity',
  quota_warning: 'Compute hours almost used',
  quota_exceeded: 'Compute hours used up',
  payment_failed: 'Payment failed',
};

export function alertView(row: AlertRow) {
  return {
    id: row.id,
    type: row.type,
    severity: row.severity,
    message: row.message,
    sandbox_id: row.sandbox_id,
    resolved: row.resolved === 1,
    created_at: row.created_at,
    resolved_at: row.resolved_at,
    resource: { kind: row.resource_kind, id: row.resource_id },
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}

export function ruleView(row: RuleRow) {
  return {
    id: row.id,
    type: row.type,
    enabled: row.enabled === 1,
    threshold: row.threshold === null ? null : Number(row.threshold),
    threshold_unit: RULE_DEFAULTS[row.type].unit,
    channels: JSON.parse(row.channels) as string[],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
