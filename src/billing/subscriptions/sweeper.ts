// Applies what the clock decides to every subscription, so limits change when a period ends and not
// only when the account is next read: a manual (or free) period rolls over to the next calendar month,
// a scheduled cancel ends (the free plan), a past-due subscription whose grace period ran out ends.
// Each server runs one; the decision is taken again under the account's lock, so two never both act.
import type { Db } from '../../core/db/handles.js';
import type { Logger } from '../../core/logging.js';
import { PeriodicTask } from '../../core/periodic-task.js';
import * as store from './store.js';
import type { SubscriptionTransitions } from './transitions.js';

const BATCH = 100;
/** Longest wait between passes: a period can also end on another server's row written meanwhile. */
export const SWEEP_INTERVAL_MS = 60_000;
const MIN_DELAY_MS = 1_000;

export class SubscriptionSweeper {
  private readonly task: PeriodicTask;

  constructor(
    private readonly db: Db,
    private readonly transitions: SubscriptionTransitions,
    private readonly log: Logger,
    private readonly clock: () => number = Date.now,
  ) {
    this.task = new PeriodicTask('subscription sweeper', SWEEP_INTERVAL_MS, () => this.pass(), log);
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Settles every subscription due at `nowMs`; how many were due. */
  async runOnce(nowMs = this.clock()): Promise<number> {
    const now = new Date(nowMs).toISOString();
    let settled = 0;
    for (;;) {
      const due = await store.dueAccounts(this.db, now, BATCH);
      let progressed = 0;
      for (const accountId of due) {
        try {
          await this.transitions.settleDue(accountId, nowMs);
          progressed++;
        } catch (err) {
          this.log.error({ err, accountId }, 'could not settle a due subscription');
        }
      }
      settled += progressed;
      if (due.length < BATCH || progressed === 0) return settled;
    }
  }

  /** One pass, then sleep until the next row falls due (at most a minute). */
  private async pass(): Promise<number> {
    await this.runOnce();
    const next = await store.nextDueAt(this.db);
    if (next === null) return SWEEP_INTERVAL_MS;
    return Math.min(SWEEP_INTERVAL_MS, Math.max(MIN_DELAY_MS, Date.parse(next) - this.clock()));
  }
}
