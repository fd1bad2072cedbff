// Task costs against their agent's max_cost_per_task. A task's cost is its run's (compute of its stage
// sandboxes + LLM cost of its sessions + what stages reported), kept in cost_usd. It is checked after
// every event of the run and, for tasks with a limit, every PADDOCK_A2A_BUDGET_INTERVAL_MS (compute
// grows between events). Reaching the limit marks the task `budget_exceeded` and cancels its run; the
// follower then ends the task `failed`.
import type { Db } from '../../core/db/handles.js';
import type { Logger } from '../../core/logging.js';
import { BUDGET_EXCEEDED } from './follower.js';
import * as store from './store.js';

export interface TaskCosts {
  /** The run's cost so far, USD. */
  costOf(runId: string): Promise<number>;
  stop(runId: string, reason: string): Promise<boolean>;
}

export class TaskBudgets {
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** Checks in flight per task; a check asked for meanwhile runs once more after it. */
  private readonly running = new Map<string, { again: boolean }>();
  private readonly settling = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly costs: TaskCosts,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.settling.size) await Promise.allSettled([...this.settling]);
  }

  /** Checks the task soon (after a run event); never throws. */
  checkSoon(task: Pick<store.TaskRow, 'id' | 'run_id' | 'max_cost_usd' | 'account_id'>): void {
    // Events of a server shutting down (stages handed back) come after the check stopped: the next server checks.
    if (this.stopped) return;
    const current = this.running.get(task.id);
    if (current) {
      current.again = true;
      return;
    }
    const state = { again: false };
    this.running.set(task.id, state);
    const work = (async () => {
      do {
        state.again = false;
        await this.check(task).catch((error) => this.log.warn({ err: error, task_id: task.id }, 'checking a task budget failed'));
      } while (state.again);
      this.running.delete(task.id);
    })();
    this.settling.add(work);
    void work.finally(() => this.settling.delete(work));
  }

  private async sweep(): Promise<void> {
    try {
      for (const task of await store.budgetedUnfinished(this.db)) this.checkSoon(task);
    } catch (error) {
      this.log.warn({ err: error }, 'sweeping task budgets failed');
    }
  }

  private async check(task: Pick<store.TaskRow, 'id' | 'run_id' | 'max_cost_usd'>): Promise<void> {
    const cost = await this.costs.costOf(task.run_id);
    await store.updateTask(this.db, task.id, { cost_usd: cost });
    if (task.max_cost_usd === null || cost < task.max_cost_usd) return;
    // Marked first: the follower, seeing the run canceled, ends a marked task `failed`, not `canceled`.
    const marked = await this.db
      .updateTable('a2a_tasks')
      .set({ error: BUDGET_EXCEEDED })
      .where('id', '=', task.id)
      .where('status', 'in', [...store.UNFINISHED])
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) === 0) return;
    await this.costs.stop(task.run_id, `${BUDGET_EXCEEDED}: the task cost ${cost.toFixed(6)} USD, reaching the agent's max_cost_per_task of ${task.max_cost_usd} USD`);
  }
}
