// What compute costs: a running sandbox is charged per second for its vCPUs and its memory at the
// configured rates; only running intervals count, so a paused or stopped sandbox costs nothing.

export interface ComputeRates {
  usdPerVcpuHour: number;
  usdPerGibHour: number;
}

/** One interval a sandbox ran at a given size; `endedAt` null while it still runs. */
export interface UsageInterval {
  cpus: number;
  memoryMb: number;
  startedAt: string;
  endedAt: string | null;
}

/** A time window in epoch milliseconds; `toMs` null means up to `nowMs`. */
export interface Window {
  fromMs: number;
  toMs: number | null;
}

export function usdPerSecond(size: { cpus: number; memoryMb: number }, rates: ComputeRates): number {
  return (size.cpus * rates.usdPerVcpuHour + (size.memoryMb / 1024) * rates.usdPerGibHour) / 3600;
}

/** Running seconds of `interval` inside `window` (all of it without one), counting an open interval up to `nowMs`. */
export function runningSeconds(interval: UsageInterval, nowMs: number, window?: Window): number {
  let from = Date.parse(interval.startedAt);
  let to = interval.endedAt === null ? nowMs : Date.parse(interval.endedAt);
  if (window) {
    from = Math.max(from, window.fromMs);
    to = Math.min(to, window.toMs ?? nowMs);
  }
  return Math.max(0, to - from) / 1000;
}

export function computeCostUsd(intervals: readonly UsageInterval[], rates: ComputeRates, nowMs: number, window?: Window): number {
  let total = 0;
  for (const interval of intervals) total += runningSeconds(interval, nowMs, window) * usdPerSecond(interval, rates);
  return total;
}

/** What the sandbox costs per second right now: its open interval's rate, 0 when it is not running. */
export function currentUsdPerSecond(intervals: readonly UsageInterval[], rates: ComputeRates): number {
  const open = intervals.find((interval) => interval.endedAt === null);
  return open ? usdPerSecond(open, rates) : 0;
}
