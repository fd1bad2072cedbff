// Budgets: the sweeper that raises thresholds and destroys sandboxes over budget, woken by the sandbox
// lifecycle when a sandbox with a budget starts or resumes running.
import type { FastifyInstance } from 'fastify';
import type { AlertRaiser, AlertThresholds } from '../alerts/contract.js';
import type { SpendCalculator } from '../billing/metering/spend.js';
import type { Config } from '../config.js';
import type { SandboxService } from '../sandboxes/service.js';
import { BudgetSweeper } from './sweeper.js';

export function registerBudgets(app: FastifyInstance, deps: { config: Config; sandboxes: SandboxService; spend: SpendCalculator; alerts: AlertRaiser & AlertThresholds }): BudgetSweeper {
  const budgets = new BudgetSweeper(deps.sandboxes, deps.spend, deps.alerts, deps.config.budgetCheckIntervalMs, app.log);
  deps.sandboxes.lifecycle.subscribe(budgets.consumer);
  app.addHook('onReady', async () => budgets.start());
  app.addHook('onClose', async () => budgets.stop());
  return budgets;
}
