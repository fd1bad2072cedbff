// Enforces sandbox budgets: checks every live sandbox with a budget at least every interval, and exactly
// when its spend is predicted to cross the next threshold, raising budget_warning / budget_critical
// once each and destroying it at the budget_exceeded threshold. Everything it knows is read from the
// database on each pass, so after a restart it carries on where it was.
import type { AlertRaiser, AlertThresholds } from '../alerts/contract.js';
import type { SpendCalculator } from '../billing/metering/spend.js';
import { PeriodicTask } from '../core/periodic-task.js';
import { usd } from '../sandboxes/callbacks/events.js';
import type { LifecycleConsumer } from '../sandboxes/lifecycle/contract.js';
import type { SandboxRow, SandboxService } from '../sandboxes/service.js';
import { BUDGET_ALERT_BITS, budgetThresholds, decide, msUntilNextThreshold, type BudgetAlert, type BudgetThresholds } from './thresholds.js';
import type { Logger } from '../core/logging.js';

/** Never wake more often than this, however close a threshold is: the clock and the database are not that precise anyway. */
const MIN_DELAY_MS = 5;

const LEVEL: Record<BudgetAlert, string> = { budget_warning: 'warning', budget_critical: 'critical' };

export class BudgetSweeper {
  private readonly task: PeriodicTask;

  constructor(
    private readonly sandboxes: SandboxService,
    private readonly spend: SpendCalculator,
    private readonly alerts: AlertRaiser & AlertThresholds,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {
    this.task = new PeriodicTask('budget sweep', intervalMs, async () => Math.max(MIN_DELAY_MS, Math.min(this.intervalMs, await this.sweep())), log);
  }

  start(): void {
    this.task.start();
  }

  /** Checks now (after the current pass): a sandbox with a budget started running, and its budget may be smaller than one interval's cost. */
  wake(): void {
    this.task.wake();
  }

  /** Wakes the sweeper when a budgeted sandbox starts being charged (created or resumed). */
  readonly consumer: LifecycleConsumer = {
    name: 'budgets',
    onEvent: (event) => {
      if ((event.type === 'sandbox.created' || event.type === 'sandbox.resumed') && event.data.budget != null) this.wake();
    },
  };

  async stop(): Promise<void> {
    await this.task.stop();
  }

  /** One pass over every budgeted live sandbox; answers how soon the next pass is wanted (ms). */
  async sweep(nowMs = Date.now()): Promise<number> {
    const rows = await this.sandboxes.budgeted();
    if (!rows.length) return this.intervalMs;
    const spends = await this.spend.of(
      rows.map((row) => row.id),
      { nowMs },
    );
    const thresholdsByAccount = new Map<string, BudgetThresholds>();
    for (const accountId of new Set(rows.map((row) => row.account_id))) {
      thresholdsByAccount.set(accountId, budgetThresholds(await this.alerts.thresholds(accountId)));
    }
    let wanted = this.intervalMs;
    await Promise.all(
      rows.map(async (row) => {
        const thresholds = thresholdsByAccount.get(row.account_id)!;
        const spend = spends.get(row.id)!;
        const budget = Number(row.budget);
        const decision = decide(spend.totalUsd, budget, thresholds, row.budget_alerts_raised);
        for (const type of decision.raise) await this.raise(row, type, spend.totalUsd, budget);
        if (decision.destroy) {
          this.log.info({ sandbox_id: row.id, spend_usd: usd(spend.totalUsd), budget }, 'sandbox reached its budget; destroying it');
          await this.sandboxes.destroyOverBudget(row.account_id, row.id);
          return;
        }
        const raised = decision.raise.reduce((bits, type) => bits | BUDGET_ALERT_BITS[type], row.budget_alerts_raised);
        const until = msUntilNextThreshold(spend.totalUsd, budget, spend.usdPerSecond, thresholds, raised);
        if (until !== null) wanted = Math.min(wanted, until);
      }),
    );
    return wanted;
  }

  /** The alert, the bit that says it was raised and the `sandbox.budget_threshold` event commit together, so a restart neither loses nor repeats it. */
  private async raise(row: SandboxRow, type: BudgetAlert, spendUsd: number, budget: number): Promise<void> {
    const data = { threshold: type, level: LEVEL[type], budget, spend_usd: usd(spendUsd), fraction: usd(spendUsd / budget) };
    await this.sandboxes.lifecycle.budgetThresholdCrossed(row, { bit: BUDGET_ALERT_BITS[type], data }, async (trx) => {
      await this.alerts.raise(
        {
          accountId: row.account_id,
          type,
          resource: { kind: 'sandbox', id: row.id },
          sandboxId: row.id,
          message: `Sandbox ${row.id} has spent $${usd(spendUsd).toFixed(4)} of its $${budget} budget (${Math.floor((spendUsd / budget) * 100)} %, ${LEVEL[type]})`,
          details: { budget, spend_usd: usd(spendUsd), fraction: usd(spendUsd / budget) },
        },
        { db: trx },
      );
    });
  }
}
