// Enforces the compute quota: checks every account with a running sandbox at least every interval, and
// exactly when its usage is predicted to reach the next threshold (hours left ÷ sandboxes running). It
// raises quota_warning and quota_exceeded once per period and limit, and at 100 % marks the limit reached
// (creates and resumes are refused) and pauses the account's running sandboxes — never destroys them, so
// no one loses work to a quota. Everything is read from the database on each pass: after a restart, or on
// several servers, each threshold is acted on once (the marks' primary key decides which pass does it).
import type { Kysely } from 'kysely';
import type { AlertRaiser, AlertThresholds } from '../../alerts/contract.js';
import type { Database } from '../../core/db/schema.js';
import type { Logger } from '../../core/logging.js';
import { PeriodicTask } from '../../core/periodic-task.js';
import type { Period, Plan, PlanCatalog, SandboxPauser, UsageReader } from '../contract.js';
import type { PeriodOf } from '../usage/period.js';
import { markOnce, runningByAccount, type QuotaMarkType } from './store.js';
import { standing, type QuotaAlert } from './thresholds.js';

/** Never wake more often than this, however close a threshold is. */
const MIN_DELAY_MS = 5;

export interface QuotaSweeperDeps {
  db: Kysely<Database>;
  usage: UsageReader;
  periodOf: PeriodOf;
  plans: PlanCatalog;
  planOf(accountId: string): Promise<Plan>;
  alerts: AlertRaiser & AlertThresholds;
  /** Pauses this server's running sandboxes of the account; null on a server without sandboxes. */
  pauser: SandboxPauser | null;
  intervalMs: number;
  log: Logger;
}

export class QuotaSweeper {
  private readonly task: PeriodicTask;

  constructor(private readonly deps: QuotaSweeperDeps) {
    this.task = new PeriodicTask('compute quota sweep', deps.intervalMs, async () => Math.max(MIN_DELAY_MS, Math.min(deps.intervalMs, await this.runOnce())), deps.log);
  }

  start(): void {
    this.task.start();
  }

  /** Checks now (after the current pass): a sandbox started running, so the next crossing moved closer. */
  wake(): void {
    this.task.wake();
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }

  /** One pass over every account with a running sandbox; answers how soon the next pass is wanted (ms). */
  async runOnce(nowMs = Date.now()): Promise<number> {
    let wanted = this.deps.intervalMs;
    for (const [accountId, running] of await runningByAccount(this.deps.db)) {
      try {
        const next = await this.check(accountId, running, nowMs);
        if (next !== null) wanted = Math.min(wanted, next);
      } catch (error) {
        this.deps.log.error({ err: error, account_id: accountId }, 'compute quota check failed');
      }
    }
    return wanted;
  }

  private async check(accountId: string, running: number, nowMs: number): Promise<number | null> {
    const plan = await this.deps.planOf(accountId);
    const limitHours = this.deps.plans.get(plan).computeHoursPerMonth;
    if (limitHours === null) return null;
    const period = await this.deps.periodOf(accountId, nowMs);
    const [usage, rules] = await Promise.all([this.deps.usage.usage(accountId, period, nowMs), this.deps.alerts.thresholds(accountId)]);
    const usedHours = usage.computeHours;
    const now = standing(usedHours, limitHours, rules, running);
    for (const type of now.raise) await this.raiseOnce(accountId, plan, type, { period, limitHours, usedHours, nowMs });
    if (now.limitReached) {
      await this.mark(this.deps.db, accountId, 'limit_reached', { period, limitHours, usedHours, nowMs });
      const paused = (await this.deps.pauser?.pauseAllRunning(accountId, `compute quota: ${limitHours} hours of the ${plan} plan used up`)) ?? 0;
      if (paused) this.deps.log.info({ account_id: accountId, paused, used_hours: usedHours, limit_hours: limitHours }, 'compute quota reached; running sandboxes paused');
    }
    return now.msUntilNext;
  }

  /** The mark and the alert commit together: a crash between them neither loses nor repeats the alert. */
  private async raiseOnce(accountId: string, plan: Plan, type: QuotaAlert, at: Standing): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await this.mark(trx, accountId, type, at))) return;
      const used = round2(at.usedHours);
      await this.deps.alerts.raise(
        {
          accountId,
          type,
          resource: { kind: 'account', id: accountId },
          sandboxId: null,
          // Marked once per period and limit (above): an alert of an earlier period still open must not swallow this one.
          supersedesOpen: true,
          message:
            type === 'quota_exceeded'
              ? `Compute quota used up: ${used} of the ${plan} plan's ${at.limitHours} compute hours for the period ending ${at.period.end}. Running sandboxes are paused (not destroyed); creating and resuming sandboxes is refused until the period ends or the plan is upgraded.`
              : `Compute quota at ${Math.floor((at.usedHours / at.limitHours) * 100)} %: ${used} of the ${plan} plan's ${at.limitHours} compute hours for the period ending ${at.period.end} are used.`,
          details: { used_hours: used, quota_hours: at.limitHours, plan, period_start: at.period.start, period_end: at.period.end },
        },
        { db: trx },
      );
    });
  }

  private mark(db: Kysely<Database>, accountId: string, type: QuotaMarkType, at: Standing): Promise<boolean> {
    return markOnce(db, {
      account_id: accountId,
      period_start: at.period.start,
      period_end: at.period.end,
      limit_hours: at.limitHours,
      type,
      hours_used: at.usedHours,
      created_at: new Date(at.nowMs).toISOString(),
    });
  }
}

interface Standing {
  period: Period;
  limitHours: number;
  usedHours: number;
  nowMs: number;
}

function round2(hours: number): number {
  return Math.round(hours * 100) / 100;
}
