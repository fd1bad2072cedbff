// The node registry as the API, the console and the cluster feature see it: nodes with `alive` computed
// from the heartbeat and the dead time, candidates for placement, drain and undrain.
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import { Conflict, Forbidden, NotFound } from '../core/errors.js';
import type { NodeDirectory, NodeView } from './contract.js';
import type { OperatorCheck } from './ports.js';
import * as store from './store.js';

/** Who acts: an operator's account through the API, or the server's console through the CLI. */
export type NodeActor = { accountId: string } | 'console';

export interface NodeSettings {
  selfId: string;
  deadAfterSeconds: number;
}

export class NodeService implements NodeDirectory {
  readonly selfId: string;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: NodeSettings,
    private readonly operators: OperatorCheck | null,
    private readonly clock: () => number = Date.now,
  ) {
    this.selfId = settings.selfId;
  }

  async get(id: string): Promise<NodeView | null> {
    const row = await store.findNode(this.db, id);
    return row ? this.view(row) : null;
  }

  async candidates(want: { runtime: string | null; template: string | null }): Promise<NodeView[]> {
    return (await this.workers()).filter(
      (node) =>
        node.state === 'active' &&
        node.sandboxes < node.capacity.max_sandboxes &&
        (want.runtime === null || node.runtime === want.runtime) &&
        (want.template === null || node.templates.includes(want.template)),
    );
  }

  async workers(): Promise<NodeView[]> {
    return (await this.all()).filter((node) => node.alive && node.role !== 'api');
  }

  /** Every node, sorted by id (operators only). */
  async list(actor: NodeActor): Promise<NodeView[]> {
    await this.requireOperator(actor);
    return this.all();
  }

  /** The node keeps its sandboxes but is offered no new ones. */
  drain(actor: NodeActor, id: string): Promise<NodeView> {
    return this.setDrained(actor, id, true);
  }

  undrain(actor: NodeActor, id: string): Promise<NodeView> {
    return this.setDrained(actor, id, false);
  }

  private async setDrained(actor: NodeActor, id: string, drained: boolean): Promise<NodeView> {
    await this.requireOperator(actor);
    const row = await store.setDrained(this.db, id, drained ? new Date(this.clock()).toISOString() : null);
    if (row) return this.view(row);
    const existing = await store.findNode(this.db, id);
    if (!existing) throw new NotFound(`node ${id}`, 'node_not_found');
    throw new Conflict(
      `node ${id} is ${existing.state}; only an active or draining node can be ${drained ? 'drained' : 'undrained'} (it registers again, as active, when it starts)`,
      'node_state_conflict',
    );
  }

  private async all(): Promise<NodeView[]> {
    return (await store.listNodes(this.db)).map((row) => this.view(row));
  }

  private async requireOperator(actor: NodeActor): Promise<void> {
    if (actor === 'console') return;
    if (!this.operators || !(await this.operators.isOperator(actor.accountId))) {
      throw new Forbidden('only an operator of this server may do this (PADDOCK_OPERATORS names them; the first account is one)', 'operator_only');
    }
  }

  private view(row: store.NodeRow): NodeView {
    const deadline = this.clock() - this.settings.deadAfterSeconds * 1000;
    return {
      id: row.id,
      role: row.role,
      address: row.address,
      state: row.state,
      epoch: Number(row.epoch),
      runtime: row.runtime,
      capacity: { cpus: Number(row.cpus), memory_bytes: Number(row.memory_bytes), disk_bytes: Number(row.disk_bytes), max_sandboxes: Number(row.max_sandboxes) },
      sandboxes: Number(row.sandboxes),
      templates: JSON.parse(row.templates) as string[],
      version: row.version,
      started_at: row.started_at,
      heartbeat_at: row.heartbeat_at,
      drained_at: row.drained_at,
      lost_at: row.lost_at,
      alive: (row.state === 'active' || row.state === 'draining') && Date.parse(row.heartbeat_at) > deadline,
    };
  }
}
