// A node's own limit on live sandboxes (scale-out): a create that would go past it is refused with 503
// node_full inside the same admission transaction as the plan's limit, so two creates cannot both take
// the last place; the API node that placed it then tries another worker.
import { totalmem } from 'node:os';
import type { ClusterConfig } from '../config.js';
import type { Db } from '../core/db/handles.js';
import type { SqlDialect } from '../core/db/dialect.js';
import { HttpError } from '../core/errors.js';
import * as store from './store.js';

const MEMORY_PER_SANDBOX_BYTES = 256 * 1024 * 1024;

export interface NodeAdmission {
  hostId: string;
  max: number;
  sqlDialect: SqlDialect;
}

/** The limit this node admits, or null on a lone node that was given none (no limit beyond the plans'). */
export function nodeAdmission(cluster: ClusterConfig, hostId: string, sqlDialect: SqlDialect): NodeAdmission | null {
  const clustered = cluster.role !== 'all' || cluster.secret !== null;
  if (cluster.maxSandboxes === null && !clustered) return null;
  return { hostId, max: cluster.maxSandboxes ?? Math.max(1, Math.floor(totalmem() / MEMORY_PER_SANDBOX_BYTES)), sqlDialect };
}

/** Inside the admission transaction: refuses when the node's live sandboxes reach its limit. */
export async function admitOnNode(trx: Db, admission: NodeAdmission): Promise<void> {
  await admission.sqlDialect.lockKey(trx, `node admission ${admission.hostId}`);
  if ((await store.countLiveSandboxesOnHost(trx, admission.hostId)) >= admission.max) {
    throw new HttpError(503, `this node runs ${admission.max} sandboxes, as many as it may (PADDOCK_NODE_MAX_SANDBOXES): place the sandbox on another node`, 'node_full', {}, { 'retry-after': '2' });
  }
}
