// Counts the SQL statements this process sends to PostgreSQL: every pg client (Kysely's pool, the rate
// limiter's store) sends through pg.Client#query, so wrapping it counts all of them, BEGIN and COMMIT included.
// Statements sent while serving an HTTP request (its async context, until the response is sent) are also
// counted apart, so a create's own statements are not mixed with the background passes running meanwhile.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:http';
import pg from 'pg';

export interface StatementCount {
  total: number;
  /** Sent while serving an HTTP request. */
  inRequest: number;
  writesInRequest: number;
  /** INSERT, UPDATE and DELETE statements (the rows PostgreSQL has to write and replicate). */
  writes: number;
  /** Statement text (parameters stripped, whitespace collapsed) → how often it ran. */
  byText: Map<string, number>;
}

const WRITE = /^\s*(with\b[\s\S]*?\)\s*)?(insert|update|delete)\b/i;

export class StatementCounter {
  private count: StatementCount = { total: 0, inRequest: 0, writesInRequest: 0, writes: 0, byText: new Map() };
  private readonly original = pg.Client.prototype.query;
  private readonly request = new AsyncLocalStorage<{ open: boolean }>();

  /** Marks what `server` does for each request, until its response is sent (a timer a request arms outlives it). */
  watch(server: Server): void {
    server.prependListener('request', (_request, response) => {
      const marker = { open: true };
      this.request.enterWith(marker);
      response.once('finish', () => (marker.open = false));
      response.once('close', () => (marker.open = false));
    });
  }

  install(): void {
    const original = this.original;
    const record = (text: string) => this.record(text);
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string } | undefined;
      record(typeof first === 'string' ? first : (first?.text ?? ''));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pg.Client.prototype.query;
  }

  uninstall(): void {
    pg.Client.prototype.query = this.original;
  }

  /** What ran since the last snapshot (or install), and a fresh count from now. */
  snapshot(): StatementCount {
    const taken = this.count;
    this.count = { total: 0, inRequest: 0, writesInRequest: 0, writes: 0, byText: new Map() };
    return taken;
  }

  private record(text: string): void {
    this.count.total++;
    const inRequest = Boolean(this.request.getStore()?.open);
    const write = WRITE.test(text);
    if (inRequest) this.count.inRequest++;
    if (write) this.count.writes++;
    if (inRequest && write) this.count.writesInRequest++;
    const key = `${inRequest ? 'request   ' : 'background'} ${text.replace(/\s+/g, ' ').slice(0, 150)}`;
    this.count.byText.set(key, (this.count.byText.get(key) ?? 0) + 1);
  }
}

/** The most frequent statements of a count, for BENCH_SCALE_VERBOSE. */
export function topStatements(count: StatementCount, limit = 40): string {
  return [...count.byText.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([text, n]) => `  ${String(n).padStart(6)}  ${text}`)
    .join('\n');
}
