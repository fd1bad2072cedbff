// When a failed delivery is tried again: exponential (×4 per attempt) from a configurable base, capped,
// with up to 10 % added at random so deliveries that failed together do not retry together.

export const MAX_RETRY_DELAY_MS = 6 * 60 * 60 * 1000;
const FACTOR = 4;
const JITTER = 0.1;

/** Delay after the `failedAttempts`-th failed attempt (1 for the first). */
export function retryDelayMs(failedAttempts: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(baseMs * FACTOR ** Math.max(0, failedAttempts - 1), MAX_RETRY_DELAY_MS);
  return Math.round(exponential * (1 + JITTER * random()));
}
