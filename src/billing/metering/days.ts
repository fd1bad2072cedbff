// UTC days: the unit of the usage rollup and of the usage history.

export const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of the UTC day holding `ms`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function dayStartMs(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The milliseconds of [fromMs, toMs) in each UTC day it touches, oldest first. */
export function splitByDay(fromMs: number, toMs: number): { day: string; ms: number }[] {
  const parts: { day: string; ms: number }[] = [];
  for (let start = fromMs; start < toMs;) {
    const end = Math.min(toMs, dayStartMs(start) + DAY_MS);
    parts.push({ day: utcDay(start), ms: end - start });
    start = end;
  }
  return parts;
}
