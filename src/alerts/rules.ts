// Alert rules: one per alert type per account, with these defaults until the account changes them.
import type { AlertType } from './contract.js';

export const CHANNELS = ['email', 'chat_a', 'chat_b', 'webhook'] as const;
export type Channel = (typeof CHANNELS)[number];

/** What a rule's threshold measures: a fraction of the sandbox budget, a trust score, a fraction of the plan's monthly compute hours, or nothing. */
export type ThresholdUnit = 'budget_fraction' | 'trust_score' | 'quota_fraction' | null;

interface RuleDefault {
  threshold: number | null;
  unit: ThresholdUnit;
}

export const RULE_DEFAULTS: Record<AlertType, RuleDefault> = {
  budget_warning: { threshold: 0.8, unit: 'budget_fraction' },
  budget_critical: { threshold: 0.95, unit: 'budget_fraction' },
  budget_exceeded: { threshold: 1.0, unit: 'budget_fraction' },
  trust_low: { threshold: 70, unit: 'trust_score' },
  trust_critical: { threshold: 50, unit: 'trust_score' },
  sandbox_error: { threshold: null, unit: null },
  idle_timeout: { threshold: null, unit: null },
  quota_warning: { threshold: 0.8, unit: 'quota_fraction' },
  quota_exceeded: { threshold: 1.0, unit: 'quota_fraction' },
  payment_failed: { threshold: null, unit: null },
};

/** New rules send to every channel; a channel only delivers once the notification config enables it. */
export const DEFAULT_CHANNELS: readonly Channel[] = CHANNELS;

/** Why `threshold` is not valid for a rule of `type`, or null when it is. */
export function thresholdProblem(type: AlertType, threshold: number | null): string | null {
  const { unit } = RULE_DEFAULTS[type];
  if (unit === null) return threshold === null ? null : `is not used by ${type} rules; omit it or send null`;
  if (threshold === null) return `is required for ${type} rules`;
  if (!Number.isFinite(threshold)) return 'must be a finite number';
  if (unit === 'budget_fraction' && (threshold < 0 || threshold > 1)) return `must be between 0.0 and 1.0 for ${type} (a fraction of the sandbox budget)`;
  if (unit === 'quota_fraction' && (threshold < 0 || threshold > 1)) return `must be between 0.0 and 1.0 for ${type} (a fraction of the plan's monthly compute hours)`;
  if (unit === 'trust_score' && (threshold < 0 || threshold > 100)) return `must be between 0 and 100 for ${type} (a trust score; the alert is raised below it)`;
  return null;
}
