// Hides secret values in text that gets recorded (command output in sessions).
export const MASK = '***';

/** Replaces every occurrence of each value (longest first, so a value containing another is hidden whole). */
export function maskSecretValues(text: string, values: readonly string[]): string {
  let masked = text;
  for (const value of [...values].filter((v) => v.length > 0).sort((a, b) => b.length - a.length)) masked = masked.split(value).join(MASK);
  return masked;
}
