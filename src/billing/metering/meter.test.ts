import { describe, expect, it } from 'vitest';
import { computeCostUsd, currentUsdPerSecond, runningSeconds, usdPerSecond } from './meter.js';

const rates = { usdPerVcpuHour: 3.6, usdPerGibHour: 7.2 };
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
const ms = (seconds: number) => Date.parse(at(seconds));

describe('compute meter', () => {
  it('charges vCPUs and GiB per second at the hourly rates', () => {
    // 2 vCPU × 3.6 $/h = 0.002 $/s; 0.5 GiB × 7.2 $/h = 0.001 $/s.
    expect(usdPerSecond({ cpus: 2, memoryMb: 512 }, rates)).toBeCloseTo(0.003, 12);
  });

  it('counts an open interval up to now', () => {
    const open = { cpus: 2, memoryMb: 512, startedAt: at(0), endedAt: null };
    expect(runningSeconds(open, ms(10))).toBe(10);
    expect(computeCostUsd([open], rates, ms(10))).toBeCloseTo(0.03, 12);
  });

  it('charges nothing between a closed interval and the next one (paused)', () => {
    const intervals = [
      { cpus: 2, memoryMb: 512, startedAt: at(0), endedAt: at(10) },
      // paused from 10 s to 100 s
      { cpus: 2, memoryMb: 512, startedAt: at(100), endedAt: null },
    ];
    expect(computeCostUsd(intervals, rates, ms(105))).toBeCloseTo(15 * 0.003, 12);
    expect(computeCostUsd(intervals, rates, ms(100))).toBeCloseTo(10 * 0.003, 12);
  });

  it('charges only the part of each interval inside a window', () => {
    const intervals = [
      { cpus: 1, memoryMb: 1024, startedAt: at(0), endedAt: at(10) },
      { cpus: 1, memoryMb: 1024, startedAt: at(20), endedAt: at(30) },
    ];
    // 1 vCPU + 1 GiB = 0.001 + 0.002 = 0.003 $/s; the window [5, 25] holds 5 s of each interval.
    expect(computeCostUsd(intervals, rates, ms(60), { fromMs: ms(5), toMs: ms(25) })).toBeCloseTo(10 * 0.003, 12);
    expect(computeCostUsd(intervals, rates, ms(60), { fromMs: ms(40), toMs: null })).toBe(0);
  });

  it('has a current rate only while an interval is open', () => {
    expect(currentUsdPerSecond([{ cpus: 1, memoryMb: 1024, startedAt: at(0), endedAt: at(1) }], rates)).toBe(0);
    expect(currentUsdPerSecond([{ cpus: 1, memoryMb: 1024, startedAt: at(0), endedAt: null }], rates)).toBeCloseTo(0.003, 12);
  });
});
