// The UsageReader of the billing contract: compute hours and compute cost from billing's own metering,
// LLM cost from the sessions feature and sandboxes created from the sandboxes feature, per UTC day.
// Compute hours: one hour per hour a sandbox runs, whatever its size; paused and stopped time count nothing.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import type { DailyUsage, LlmSpend, Period, SandboxCreations, Usage, UsageReader } from '../contract.js';
import { DAY_MS, dayStartMs, utcDay } from '../metering/days.js';
import type { ComputeRates } from '../metering/meter.js';
import { computeByDay } from './compute-by-day.js';
import type { DayRollup } from './store.js';

const MS_PER_HOUR = 3_600_000;

export class MeteredUsageReader implements UsageReader {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly rates: ComputeRates,
    private readonly llm: LlmSpend,
    private readonly creations: SandboxCreations,
  ) {}

  async usage(accountId: string, period: Period, nowMs = Date.now()): Promise<Usage> {
    return sum(await this.daily(accountId, period, nowMs));
  }

  /** One entry per UTC day the window touches, oldest first, days without usage included. */
  async daily(accountId: string, window: Period, nowMs = Date.now()): Promise<DailyUsage[]> {
    const fromMs = Date.parse(window.start);
    const toMs = Date.parse(window.end);
    if (!(fromMs < toMs)) return [];
    const [compute, llm, created] = await Promise.all([
      computeByDay(this.db, accountId, fromMs, toMs, nowMs),
      this.llm.llmCostPerDay(accountId, window),
      this.creations.createdPerDay(accountId, window),
    ]);
    const days: DailyUsage[] = [];
    for (let dayMs = dayStartMs(fromMs); dayMs < toMs; dayMs += DAY_MS) {
      const date = utcDay(dayMs);
      const computeCostUsd = this.costUsd(compute.get(date));
      const llmCostUsd = llm.get(date) ?? 0;
      days.push({
        date,
        computeHours: (compute.get(date)?.runningMs ?? 0) / MS_PER_HOUR,
        computeCostUsd,
        llmCostUsd,
        totalCostUsd: computeCostUsd + llmCostUsd,
        sandboxesCreated: created.get(date) ?? 0,
      });
    }
    return days;
  }

  private costUsd(day: DayRollup | undefined): number {
    if (!day) return 0;
    return (day.cpuMs / MS_PER_HOUR) * this.rates.usdPerVcpuHour + (day.memoryMbMs / 1024 / MS_PER_HOUR) * this.rates.usdPerGibHour;
  }
}

export function sum(days: readonly Usage[]): Usage {
  const total: Usage = { computeHours: 0, computeCostUsd: 0, llmCostUsd: 0, totalCostUsd: 0, sandboxesCreated: 0 };
  for (const day of days) {
    total.computeHours += day.computeHours;
    total.computeCostUsd += day.computeCostUsd;
    total.llmCostUsd += day.llmCostUsd;
    total.totalCostUsd += day.totalCostUsd;
    total.sandboxesCreated += day.sandboxesCreated;
  }
  return total;
}
