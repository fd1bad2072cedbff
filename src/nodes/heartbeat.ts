// This node's own row: registered once the server listens (a new epoch each time), a heartbeat every
// PADDOCK_NODE_HEARTBEAT_MS carrying that epoch, `stopped` on a clean close. A heartbeat that updates no
// row means the node was fenced (declared lost, or another process registered under its id): it
// reconciles its sandboxes (the lost ones' containers go) and registers again with a new epoch.
import type { Kysely } from 'kysely';
import type { AddressInfo } from 'node:net';
import type { ClusterConfig } from '../config.js';
import type { Database } from '../core/db/schema.js';
import type { Logger } from '../core/logging.js';
import { PeriodicTask } from '../core/periodic-task.js';
import { nowIso } from '../core/time.js';
import { nodeAddress } from './address.js';
import { builtTemplates, measureCapacity, paddockVersion } from './capacity.js';
import type { LiveSandboxes, SandboxReconcile } from './ports.js';
import * as store from './store.js';

export interface HeartbeatDeps {
  db: Kysely<Database>;
  hostId: string;
  dataDir: string;
  cluster: ClusterConfig;
  /** `runc` or `gvisor`; null without a runtime (then no sandboxes, no templates). */
  runtimeName: string | null;
  live: LiveSandboxes;
  /** Present with a runtime. */
  reconcile: SandboxReconcile | null;
  log: Logger;
}

export class NodeHeartbeat {
  private epoch: number | null = null;
  private address: string | null = null;
  private readonly task: PeriodicTask;
  private firstPass: Promise<void> | null = null;
  /** Since when every heartbeat of this node got through (null while they fail or before registration). */
  private healthySince: number | null = null;

  constructor(private readonly deps: HeartbeatDeps) {
    this.task = new PeriodicTask('node heartbeat', deps.cluster.heartbeatMs, () => this.beat(), deps.log);
  }

  /** The epoch this process registered with; null before it registered. */
  get currentEpoch(): number | null {
    return this.epoch;
  }

  /** Registers now (the server listens on `listening`), then beats every heartbeatMs. */
  start(listening: AddressInfo | string | null): Promise<void> {
    this.firstPass ??= (async () => {
      this.address = nodeAddress(this.deps.cluster.nodeAddress, listening);
      await this.register().catch((err) => {
        this.healthySince = null;
        this.deps.log.error({ err }, 'node registration failed; retrying at the next heartbeat');
      });
      this.task.start(this.deps.cluster.heartbeatMs);
    })();
    return this.firstPass;
  }

  /** How long this node's own heartbeats have been getting through: a node that could not reach the database
   * for a while must not declare others lost the moment it can again, before they had a chance to beat. */
  healthyForMs(now = Date.now()): number {
    return this.healthySince === null ? 0 : now - this.healthySince;
  }

  /** Resolves once the first registration was tried (at once when the server never listened). */
  registered(): Promise<void> {
    return this.firstPass ?? Promise.resolve();
  }

  /** A clean close: no more heartbeats, and `stopped` so that no other node declares this one lost. */
  async stop(): Promise<void> {
    await this.firstPass;
    await this.task.stop();
    this.healthySince = null;
    if (this.epoch !== null) await store.stop(this.deps.db, this.deps.hostId, this.epoch, nowIso());
    this.epoch = null;
  }

  private async beat(): Promise<void> {
    try {
      await this.beatOrRegister();
    } catch (error) {
      this.healthySince = null;
      throw error;
    }
  }

  private async beatOrRegister(): Promise<void> {
    if (this.epoch === null) return this.register();
    if (await store.heartbeat(this.deps.db, this.deps.hostId, this.epoch, await this.liveSandboxes(), nowIso())) {
      this.healthySince ??= Date.now();
      return;
    }
    const row = await store.findNode(this.deps.db, this.deps.hostId);
    this.deps.log.error(
      { node: this.deps.hostId, epoch: this.epoch, state: row?.state ?? null, epochNow: row?.epoch ?? null },
      row?.state === 'lost'
        ? 'this node was declared lost (its heartbeats did not arrive in time): reconciling its sandboxes and registering again'
        : 'this node was fenced (its row has a newer epoch): registering again',
    );
    this.epoch = null;
    this.healthySince = null;
    if (row?.state === 'lost') await this.deps.reconcile?.reconcile();
    await this.register();
  }

  private async register(): Promise<void> {
    const { dataDir, cluster, runtimeName } = this.deps;
    const { epoch, state } = await store.register(this.deps.db, {
      id: this.deps.hostId,
      role: cluster.role,
      address: this.address!,
      runtime: runtimeName,
      ...(await measureCapacity(dataDir, cluster.maxSandboxes)),
      sandboxes: await this.liveSandboxes(),
      templates: JSON.stringify(await builtTemplates(dataDir, runtimeName !== null)),
      version: await paddockVersion(),
      at: nowIso(),
    });
    this.epoch = epoch;
    this.healthySince = Date.now();
    this.deps.log.info({ node: this.deps.hostId, address: this.address, epoch, state }, 'node registered');
  }

  private liveSandboxes(): Promise<number> {
    return this.deps.runtimeName === null ? Promise.resolve(0) : this.deps.live.liveOn(this.deps.hostId);
  }
}
