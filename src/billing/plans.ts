// What each plan allows. Prices and compute hours land with billing; the concurrency limit is enforced now.
import type { Plan } from '../config.js';

export interface PlanLimits {
  /** Sandboxes not destroyed nor failed at once; null for unlimited. */
  concurrentSandboxes: number | null;
  computeHoursPerMonth: number | null;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { concurrentSandboxes: 2, computeHoursPerMonth: 10 },
  pro: { concurrentSandboxes: 10, computeHoursPerMonth: 100 },
  team: { concurrentSandboxes: 50, computeHoursPerMonth: 500 },
  enterprise: { concurrentSandboxes: null, computeHoursPerMonth: null },
};
