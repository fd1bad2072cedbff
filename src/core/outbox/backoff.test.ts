import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_MS, retryDelayMs } from './backoff.js';

describe('retryDelayMs', () => {
  it('grows four-fold per failed attempt from the base', () => {
    const none = () => 0;
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 5000, none))).toEqual([5000, 20_000, 80_000, 320_000]);
  });

  it('adds at most 10 % jitter', () => {
    expect(retryDelayMs(1, 1000, () => 0.999)).toBe(1100);
    expect(retryDelayMs(2, 1000, () => 0.5)).toBe(4200);
  });

  it('is capped at six hours', () => {
    expect(retryDelayMs(30, 5000, () => 0)).toBe(MAX_RETRY_DELAY_MS);
  });
});
