// The bodies of sandbox callbacks: Standard Webhooks events `{type, timestamp, data}`, like the alert
// webhook, so one receiver verifies both the same way.
import type { SandboxSpend } from '../../billing/metering/spend.js';
import type { SandboxRow } from '../store.js';

/** Why a sandbox ended: DELETE, its budget, or the error state (a crash or a failed set-up step). */
export type EndReason = 'deleted' | 'budget_exceeded' | 'error';

/** Float sums drift (0.1 + 0.2); ten decimals are far below a cent and above the drift. */
export function usd(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}

function spendFields(spend: SandboxSpend) {
  return { spend_usd: usd(spend.totalUsd), compute_cost_usd: usd(spend.computeUsd), llm_cost_usd: usd(spend.llmUsd) };
}

export function completedEvent(sandbox: SandboxRow, reason: EndReason, spend: SandboxSpend, endedAt: string) {
  return {
    type: 'sandbox.completed',
    timestamp: endedAt,
    data: {
      id: sandbox.id,
      status: reason === 'error' ? 'error' : 'destroyed',
      reason,
      error: reason === 'error' ? sandbox.error : null,
      template: sandbox.template,
      budget: sandbox.budget === null ? null : Number(sandbox.budget),
      ...spendFields(spend),
      created_at: sandbox.created_at,
      ended_at: endedAt,
    },
  };
}

export function budgetExceededEvent(sandbox: SandboxRow, spend: SandboxSpend, exceededAt: string) {
  return {
    type: 'sandbox.budget_exceeded',
    timestamp: exceededAt,
    data: {
      id: sandbox.id,
      budget: Number(sandbox.budget),
      ...spendFields(spend),
      action: 'destroyed',
      exceeded_at: exceededAt,
    },
  };
}
