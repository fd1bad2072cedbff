// Keeps allowlisted hostnames' addresses current: resolves them on the host, through the same resolvers
// the sandboxes use, and hands the resulting destination list to `apply` whenever it changes.
import { Resolver } from 'node:dns/promises';

export interface AllowlistTarget {
  id: string;
  /** IPv4 CIDRs allowed whatever DNS says. */
  cidrs: string[];
  hostnames: string[];
}

type Apply = (id: string, allowed: string[]) => Promise<void>;

interface Entry {
  target: AllowlistTarget;
  /** Resolved address → time after which it is no longer allowed unless seen again. */
  expiresAt: Map<string, number>;
  lastApplied: string;
}

export class DnsRefresher {
  private readonly entries = new Map<string, Entry>();
  private readonly resolver: Resolver;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    dnsServers: string[],
    private readonly intervalMs: number,
    private readonly graceMs: number,
    private readonly apply: Apply,
    private readonly warn: (message: string) => void,
  ) {
    this.resolver = new Resolver({ timeout: 2000, tries: 2 });
    if (dnsServers.length > 0) this.resolver.setServers(dnsServers);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.refreshAll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Resolves the target's names now and returns the destinations to allow (also remembered for refreshes). */
  async register(target: AllowlistTarget): Promise<string[]> {
    const entry: Entry = { target, expiresAt: new Map(), lastApplied: '' };
    const allowed = await this.resolveEntry(entry);
    entry.lastApplied = allowed.join(',');
    if (target.hostnames.length > 0) this.entries.set(target.id, entry);
    return allowed;
  }

  unregister(id: string): void {
    this.entries.delete(id);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** One refresh pass over every registered sandbox; concurrent calls share the pass in progress. */
  refreshAll(): Promise<void> {
    this.running ??= this.refreshEntries().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async refreshEntries(): Promise<void> {
    for (const [id, entry] of [...this.entries]) {
      const allowed = await this.resolveEntry(entry);
      const key = allowed.join(',');
      if (key === entry.lastApplied || this.entries.get(id) !== entry) continue;
      try {
        await this.apply(id, allowed);
        entry.lastApplied = key;
      } catch (error) {
        this.warn(`allowlist refresh of ${id} failed: ${(error as Error).message}`);
      }
    }
  }

  private async resolveEntry(entry: Entry): Promise<string[]> {
    const now = Date.now();
    await Promise.all(
      entry.target.hostnames.map(async (hostname) => {
        try {
          for (const record of await this.resolver.resolve4(hostname, { ttl: true })) {
            const keepMs = Math.max(this.graceMs, record.ttl * 1000);
            entry.expiresAt.set(record.address, Math.max(entry.expiresAt.get(record.address) ?? 0, now + keepMs));
          }
        } catch (error) {
          // A failed lookup keeps the addresses already known until they expire; the next pass retries.
          this.warn(`allowlist host ${hostname} of ${entry.target.id} did not resolve: ${(error as Error).message}`);
        }
      }),
    );
    for (const [address, expiresAt] of entry.expiresAt) {
      if (expiresAt < now) entry.expiresAt.delete(address);
    }
    const resolved = [...entry.expiresAt.keys()].map((address) => `${address}/32`);
    return [...new Set([...entry.target.cidrs, ...resolved])].sort();
  }
}
