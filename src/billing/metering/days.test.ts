import { describe, expect, it } from 'vitest';
import { DAY_MS, splitByDay, utcDay } from './days.js';

const ms = (iso: string) => Date.parse(iso);

describe('UTC days', () => {
  it('names the UTC day of an instant', () => {
    expect(utcDay(ms('2026-11-30T23:59:59.999Z'))).toBe('2026-11-30');
    expect(utcDay(ms('2026-12-01T00:00:00.000Z'))).toBe('2026-12-01');
  });

  it('splits an interval at each midnight', () => {
    expect(splitByDay(ms('2026-11-30T22:00:00Z'), ms('2026-12-02T01:30:00Z'))).toEqual([
      { day: '2026-11-30', ms: 2 * 3_600_000 },
      { day: '2026-12-01', ms: DAY_MS },
      { day: '2026-12-02', ms: 90 * 60_000 },
    ]);
  });

  it('keeps an interval inside one day whole and an empty one empty', () => {
    expect(splitByDay(ms('2026-11-30T10:00:00Z'), ms('2026-11-30T10:00:01Z'))).toEqual([{ day: '2026-11-30', ms: 1000 }]);
    expect(splitByDay(ms('2026-11-30T10:00:00Z'), ms('2026-11-30T10:00:00Z'))).toEqual([]);
  });
});
