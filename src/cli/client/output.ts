// How client commands talk to people and to scripts: aligned tables and plain lines on stdout, `--json`
// printing the API's own JSON, errors as `error: <message> (<code>)` on stderr, and a spinner on stderr
// for anything slower than a second (only on a terminal, so pipes and logs stay clean).
import { PaddockError } from '@paddock/sdk';

/** Wrong or missing arguments: exit code 2. */
export class UsageError extends Error {}

/** A failure the CLI itself detects (a file that does not exist, a bad YAML file): exit code 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function printLine(text: string): void {
  process.stdout.write(text + '\n');
}

export type Column<T> = [header: string, value: (row: T) => unknown];

/** Left-aligned columns two spaces apart, headers in capitals; `-` for null. */
export function printTable<T>(rows: readonly T[], columns: Column<T>[]): void {
  const cells = rows.map((row) => columns.map(([, value]) => cellText(value(row))));
  const headers = columns.map(([header]) => header.toUpperCase());
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ');
  process.stdout.write([headers, ...cells].map(line).join('\n') + '\n');
}

/** Field/value pairs of one record, aligned. */
export function printRecord(record: Record<string, unknown>): void {
  const width = Math.max(...Object.keys(record).map((name) => name.length));
  for (const [name, value] of Object.entries(record)) process.stdout.write(`${name.padEnd(width)}  ${cellText(value)}\n`);
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length ? value.map(cellText).join(',') : '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).replace(/\s+/g, ' ');
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Runs `work`; when it takes over a second and stderr is a terminal, shows `label` with a spinner meanwhile. */
export async function withProgress<T>(label: string, work: () => Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return work();
  let frame = 0;
  let ticker: NodeJS.Timeout | undefined;
  const started = setTimeout(() => {
    ticker = setInterval(() => process.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}`), 100);
  }, 1000);
  try {
    return await work();
  } finally {
    clearTimeout(started);
    if (ticker) {
      clearInterval(ticker);
      process.stderr.write(`\r\x1b[2K`);
    }
  }
}

/** Prints an error the way every client command does and answers the exit code. */
export function reportError(error: unknown, helpCommand?: string): number {
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message} (usage)\n${helpCommand ? `see \`${helpCommand} --help\`\n` : ''}`);
    return 2;
  }
  if (error instanceof PaddockError || error instanceof CliError) {
    process.stderr.write(`error: ${error.message} (${error.code})\n`);
    return 1;
  }
  const { code, message } = error as { code?: unknown; message?: unknown };
  process.stderr.write(`error: ${typeof message === 'string' ? message : String(error)}${typeof code === 'string' ? ` (${code})` : ''}\n`);
  return 1;
}
