// Scale-out: a restore into a sandbox on another node than the one holding the snapshot's archive. The
// request reaches the archive's node (src/cluster/routing.ts); that node checks it as it would a local
// restore, then streams the archive to the sandbox's node in a signed node call
// (peer-restore-route.ts), which swaps the sandbox's files and answers. Its errors come back as they are.
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { HttpError } from '../core/errors.js';
import { signNodeCall } from '../core/node-calls.js';
import type { NodeDirectory } from '../nodes/contract.js';

export const PEER_RESTORE_PATH = '/v1/internal/snapshot-restores';
/** A node that does not accept the connection within this is unreachable (a partitioned one never refuses it). */
const CONNECT_TIMEOUT_MS = 5000;
/** An answer is a small JSON body; more than this is cut. */
const ANSWER_LIMIT = 64 * 1024;

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
    const headers = { ...signNodeCall(this.secret, 'PUT', target.pathname + target.search), 'content-type': 'application/gzip' };
    let answer: { status: number; text: string };
    try {
      answer = await send(target, headers, job.archive);
    } catch (error) {
      throw new HttpError(502, `node ${hostId}, which runs sandbox ${job.sandboxId}, could not be reached (${(error as Error).message}): retry`, 'node_unreachable');
    }
    if (answer.status >= 200 && answer.status < 300) return;
    let body: { error?: unknown; code?: unknown } = {};
    try {
      body = JSON.parse(answer.text);
    } catch {}
    const message = typeof body.error === 'string' ? body.error : `node ${hostId} answered ${answer.status} to the restore`;
    throw new HttpError(answer.status, message, (typeof body.code === 'string' ? body.code : 'node_unreachable') as never);
  }
}

/**
 * Streams the archive in a PUT and reads the answer. Over node:http rather than fetch: the answer comes
 * once the files are swapped, which for a large archive can take longer than fetch waits for headers.
 */
function send(target: URL, headers: Record<string, string>, archive: Readable): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request(target, { method: 'PUT', headers });
    const connectTimer = setTimeout(() => request.destroy(new Error('the connection was not accepted within 5 s')), CONNECT_TIMEOUT_MS);
    request.on('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => clearTimeout(connectTimer));
      else clearTimeout(connectTimer);
    });
    request.on('response', (response) => {
      clearTimeout(connectTimer);
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (text.length < ANSWER_LIMIT) text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 502, text }));
      response.on('error', reject);
    });
    request.on('error', (error) => {
      clearTimeout(connectTimer);
      reject(error);
    });
    archive.on('error', (error) => request.destroy(error));
    archive.pipe(request);
  });
}
