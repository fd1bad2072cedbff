// Newline-delimited JSON (an exec stream, a followed process, a CLI's --json lines, a log file) as values.
export function ndjsonLines<T = any>(text: string): T[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}
