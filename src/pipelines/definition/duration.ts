// Duration strings of stage definitions: a whole number and a unit, `500ms`, `30s`, `5m`, `1h`, `2d`,
// or several joined (`1h30m`), as Go and GitHub Actions users write them.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+)(ms|s|m|h|d)/g;
const WHOLE = /^(?:\d+(?:ms|s|m|h|d))+$/;

/** Milliseconds, or null when `text` is not a duration string. */
export function parseDurationMs(text: string): number | null {
  if (!WHOLE.test(text)) return null;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) total += Number(amount) * UNIT_MS[unit];
  return Number.isSafeInteger(total) ? total : null;
}
