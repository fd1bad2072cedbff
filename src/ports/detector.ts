// Every 2 s, reads the listening TCP sockets of each running sandbox (runtime.listeningPorts: a read
// of the sandbox network namespace's socket table), probes new ones for HTTP, and records changes in
// `sandbox_ports`. It also keeps the in-memory view the preview proxy routes by, so a proxied request
// costs no query.
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import { nowIso } from '../core/time.js';
import type { ListeningPort, SandboxRuntime } from '../runtime/runtime.js';
import type { RunningSandbox, SandboxPlace } from '../sandboxes/directory.js';
import { probeProtocol, type PortProtocol } from './probe.js';
import * as store from './store.js';
import type { Logger } from '../core/logging.js';

export const SCAN_INTERVAL_MS = 2000;

/** What the detector reads of the sandbox records (the sandbox directory answers). */
export interface ScannedSandboxes {
  runningOn(hostId: string): Promise<RunningSandbox[]>;
  placesOf(ids: readonly string[]): Promise<Map<string, SandboxPlace>>;
}

export interface LiveSandbox {
  id: string;
  accountId: string;
  ip: string | null;
}

export interface LivePort {
  port: number;
  protocol: PortProtocol;
  detectedAt: string;
  passwordHash: string | null;
}

/** A socket bound to loopback inside the sandbox cannot be reached from the host, so it is not a port Paddock offers. */
export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

export class PortDetector {
  private sandboxes = new Map<string, LiveSandbox>();
  private ports = new Map<string, Map<number, LivePort>>();
  /** Passwords changed while a scan was reading the table: applied over what it read. */
  private passwordChanges = new Map<string, { sandboxId: string; port: number; passwordHash: string | null }>();
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> | null = null;
  private stopped = true;
  private readonly changeListeners: Array<() => void> = [];
  /**
   * The sandboxes the last pass found running here. A pass reads the ports of those and of the ones running
   * now, not every node's; the first pass reads them all, for sandboxes that stopped while this server was down.
   */
  private lastRunning: ReadonlySet<string> | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly records: ScannedSandboxes,
    private readonly runtime: SandboxRuntime,
    private readonly log: Logger,
    private readonly hostId: string,
    private readonly intervalMs = SCAN_INTERVAL_MS,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.current;
  }

  sandbox(id: string): LiveSandbox | undefined {
    return this.sandboxes.get(id);
  }

  port(sandboxId: string, port: number): LivePort | undefined {
    return this.ports.get(sandboxId)?.get(port);
  }

  /** Called after the password was written to the database, so the proxy enforces it at once. */
  passwordChanged(sandboxId: string, port: number, passwordHash: string | null): void {
    this.passwordChanges.set(`${sandboxId}:${port}`, { sandboxId, port, passwordHash });
    const live = this.ports.get(sandboxId)?.get(port);
    if (live) live.passwordHash = passwordHash;
    this.changed();
  }

  /** A sandbox stopped running (paused, failed, destroyed): the proxy stops routing to it now, the next scan records its ports stopped. */
  sandboxStopped(sandboxId: string): void {
    if (!this.sandboxes.delete(sandboxId)) return;
    this.ports.delete(sandboxId);
    this.changed();
  }

  /** `listener` runs after every change of the view: a scan's reload, a password. */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const started = Date.now();
      this.current = this.scan()
        .catch((err) => this.log.error({ err }, 'port scan failed'))
        .finally(() => {
          this.current = null;
          this.schedule(Math.max(0, started + this.intervalMs - Date.now()));
        });
    }, delayMs);
    this.timer.unref();
  }

  /** One pass over every running sandbox. */
  async scan(): Promise<void> {
    const now = nowIso();
    const running = await this.records.runningOn(this.hostId);
    const runningIds = new Set(running.map((s) => s.id));
    const rows = this.lastRunning ? await store.portsOf(this.db, [...new Set([...runningIds, ...this.lastRunning])]) : await store.allPorts(this.db);
    const listed = new Map<string, Set<number>>();
    for (const row of rows) {
      if (!row.listening) continue;
      if (!listed.has(row.sandbox_id)) listed.set(row.sandbox_id, new Set());
      listed.get(row.sandbox_id)!.add(row.port);
    }
    // Nothing outside a `none` sandbox can reach its ports, and on gVisor reading them is an exec inside it
    // every pass (its memory checkpoint grew with each one).
    const reachable = running.filter((sandbox) => sandbox.networkMode !== 'none');
    await Promise.all(reachable.map((sandbox) => this.scanSandbox(sandbox.id, sandbox.ip, listed.get(sandbox.id) ?? new Set(), now)));
    // A port recorded for such a sandbox before it stopped being scanned is not reachable either.
    for (const sandbox of running) {
      if (sandbox.networkMode !== 'none') continue;
      for (const port of listed.get(sandbox.id) ?? []) await store.markStopped(this.db, sandbox.id, port, now);
    }

    // Ports of this server's sandboxes that stopped running (paused, failed, destroyed) are no longer
    // listening; another server's sandboxes are its own business.
    const places = await this.records.placesOf([...new Set(rows.map((r) => r.sandbox_id))].filter((id) => !runningIds.has(id)));
    const gone = [...places].filter(([, place]) => place.hostId === this.hostId);
    for (const row of rows.filter((r) => r.listening && places.get(r.sandbox_id)?.hostId === this.hostId)) await store.markStopped(this.db, row.sandbox_id, row.port, now);
    if (gone.length)
      await store.forgetSandboxes(
        this.db,
        [...places].filter(([, place]) => place.status === 'destroyed').map(([id]) => id),
      );

    await this.reload(running);
    this.lastRunning = runningIds;
  }

  private async scanSandbox(id: string, ip: string | null, listed: Set<number>, now: string): Promise<void> {
    let found: ListeningPort[];
    try {
      found = await this.runtime.listeningPorts(id);
    } catch (err) {
      // Usually a sandbox destroyed between the query and the read; what was listed stays until the next pass.
      this.log.debug({ err, sandbox_id: id }, 'could not read listening ports');
      return;
    }
    const reachable = new Set(found.filter((p) => !isLoopback(p.address)).map((p) => p.port));
    await Promise.all([...reachable].filter((port) => !listed.has(port)).map(async (port) => store.markListening(this.db, id, port, ip ? await probeProtocol(ip, port) : 'tcp', now)));
    for (const port of listed) if (!reachable.has(port)) await store.markStopped(this.db, id, port, now);
  }

  private async reload(running: RunningSandbox[]): Promise<void> {
    this.passwordChanges.clear();
    const rows = await store.portsOf(
      this.db,
      running.map((s) => s.id),
    );
    const sandboxes = new Map(running.map((s) => [s.id, { id: s.id, accountId: s.accountId, ip: s.ip }]));
    const ports = new Map<string, Map<number, LivePort>>();
    for (const row of rows) {
      if (!row.listening || !sandboxes.has(row.sandbox_id) || !row.detected_at) continue;
      if (!ports.has(row.sandbox_id)) ports.set(row.sandbox_id, new Map());
      ports.get(row.sandbox_id)!.set(row.port, { port: row.port, protocol: row.protocol as PortProtocol, detectedAt: row.detected_at, passwordHash: row.password_hash });
    }
    for (const change of this.passwordChanges.values()) {
      const live = ports.get(change.sandboxId)?.get(change.port);
      if (live) live.passwordHash = change.passwordHash;
    }
    this.sandboxes = sandboxes;
    this.ports = ports;
    this.changed();
  }
}
