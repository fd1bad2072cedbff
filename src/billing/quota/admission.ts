// Whether an account may start compute now: refused once its plan's compute hours for the period are used
// up (the sweeper's limit_reached mark), until the period rolls over or a bigger plan lifts the limit.
// One indexed read of the account's marks, so a create pays well under a millisecond for it.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import type { Plan, PlanCatalog } from '../contract.js';
import { reachedLimit } from './store.js';

export class QuotaAdmission {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly plans: PlanCatalog,
  ) {}

  concurrentSandboxes(plan: Plan): number | null {
    return this.plans.get(plan).concurrentSandboxes;
  }

  /** Why a create or resume is refused now, or null when the plan's compute hours are not used up. */
  async refusal(accountId: string, plan: Plan, nowMs = Date.now()): Promise<string | null> {
    const limitHours = this.plans.get(plan).computeHoursPerMonth;
    if (limitHours === null) return null;
    const reached = await reachedLimit(this.db, accountId, new Date(nowMs).toISOString());
    if (!reached || reached.limitHours < limitHours) return null;
    return (
      `the ${plan} plan's ${limitHours} compute hours for the period ending ${reached.periodEnd} are used up; ` +
      'running sandboxes were paused, not destroyed. Upgrade the plan, or wait for the next period, to create or resume sandboxes'
    );
  }
}
