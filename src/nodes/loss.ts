// The loss sweeper, on every node (with a runtime or not): another node (never this one) whose heartbeat is
// older than the dead time is declared lost in one conditional update (the epoch it read: one winner
// among sweepers), then its live sandboxes go `error` with reason `node_lost`.
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import type { Logger } from '../core/logging.js';
import { PeriodicTask } from '../core/periodic-task.js';
import type { LostSandboxes } from './ports.js';
import * as store from './store.js';

export interface LossSweeperDeps {
  db: Kysely<Database>;
  selfId: string;
  deadAfterSeconds: number;
  intervalMs: number;
  sandboxes: LostSandboxes;
  /** How long this node's own heartbeats have been getting through (NodeHeartbeat.healthyForMs). */
  healthyForMs: (now: number) => number;
  log: Logger;
}

export class LossSweeper {
  private readonly task: PeriodicTask;
  private firstPass = true;

  constructor(private readonly deps: LossSweeperDeps) {
    this.task = new PeriodicTask(
      'node loss sweeper',
      deps.intervalMs,
      async () => {
        await this.sweep();
      },
      deps.log,
    );
  }

  start(): void {
    this.task.start(this.deps.intervalMs);
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One pass; the ids of the nodes this pass declared lost. */
  async sweep(now = Date.now()): Promise<string[]> {
    // Only a node that has itself been reaching the database for the whole dead time judges others: after
    // an outage of the database (or of this node's link to it) every heartbeat is old, and the others need
    // a heartbeat interval to beat again.
    if (this.deps.healthyForMs(now) < this.deps.deadAfterSeconds * 1000) return [];
    const cutoff = new Date(now - this.deps.deadAfterSeconds * 1000).toISOString();
    const declared: string[] = [];
    for (const node of await store.silentNodes(this.deps.db, cutoff)) {
      if (node.id === this.deps.selfId) continue;
      if (!(await store.declareLost(this.deps.db, node.id, Number(node.epoch), cutoff, new Date(now).toISOString()))) continue;
      declared.push(node.id);
      const failed = await this.deps.sandboxes.declareLost(node.id);
      this.deps.log.warn({ node: node.id, lastHeartbeat: node.heartbeat_at, sandboxes: failed }, 'node declared lost: no heartbeat for the dead time');
    }
    // A sweeper that died between declaring a node lost and failing its sandboxes left them live: the
    // first pass after a start finishes that work (it moves only sandboxes still live).
    if (this.firstPass) {
      this.firstPass = false;
      for (const node of await store.lostNodes(this.deps.db)) if (node.id !== this.deps.selfId && !declared.includes(node.id)) await this.deps.sandboxes.declareLost(node.id);
    }
    return declared;
  }
}
