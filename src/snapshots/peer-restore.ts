// Scale-out: a restore into a sandbox on another node than the one holding the snapshot's archive. The
// request reaches the archive's node (src/cluster/routing.ts); that node checks it as it would a local
// restore, then streams the archive to the sandbox's node in a signed node call
// (peer-restore-route.ts), which swaps the sandbox's files and answers. Its errors come back as they are.
import type { Readable } from 'node:stream';
import { HttpError } from '../core/errors.js';
import { signNodeCall } from '../core/node-calls.js';
import type { NodeDirectory } from '../nodes/contract.js';

export const PEER_RESTORE_PATH = '/v1/internal/snapshot-restores';

export interface PeerRestore {
  accountId: string;
  sandboxId: string;
  snapshotId: string;
  /** The snapshot's sandbox was confidential: the target becomes confidential too. */
  confidential: boolean;
  archive: Readable;
}

export class PeerRestores {
  constructor(
    private readonly nodes: NodeDirectory,
    private readonly secret: Buffer,
  ) {}

  async restoreOn(hostId: string, job: PeerRestore): Promise<void> {
    const node = await this.nodes.get(hostId);
    if (!node?.alive) throw new HttpError(502, `node ${hostId}, which runs sandbox ${job.sandboxId}, is not alive: retry once it is back`, 'node_unreachable');
    const query = new URLSearchParams({ account_id: job.accountId, snapshot_id: job.snapshotId, confidential: job.confidential ? '1' : '0' });
    const target = new URL(`${PEER_RESTORE_PATH}/${encodeURIComponent(job.sandboxId)}?${query}`, node.address);
    let response: Response;
    try {
      response = await fetch(target, {
        method: 'PUT',
        headers: { ...signNodeCall(this.secret, 'PUT', target.pathname + target.search), 'content-type': 'application/gzip' },
        body: job.archive as unknown as ReadableStream,
        duplex: 'half',
      } as RequestInit);
    } catch (error) {
      throw new HttpError(502, `node ${hostId}, which runs sandbox ${job.sandboxId}, could not be reached (${(error as Error).message}): retry`, 'node_unreachable');
    }
    const text = await response.text();
    if (response.ok) return;
    let body: { error?: unknown; code?: unknown } = {};
    try {
      body = JSON.parse(text);
    } catch {}
    const message = typeof body.error === 'string' ? body.error : `node ${hostId} answered ${response.status} to the restore`;
    throw new HttpError(response.status, message, (typeof body.code === 'string' ? body.code : 'node_unreachable') as never);
  }
}
