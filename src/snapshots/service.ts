// Snapshot rules: the limits, taking a consistent copy (the runtime freezes the sandbox only for the copy),
// the automatic snapshot of a pause, restore, deletion and signed downloads. Archives live in a SnapshotStorage.
import { createWriteStream } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../core/db/schema.js';
import { Conflict, Forbidden, HttpError, Invalid, LimitExceeded, NotFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/time.js';
import type { SandboxRuntime } from '../runtime/runtime.js';
import type { PauseSnapshot, PauseSnapshots, SandboxRow, SandboxService } from '../sandboxes/service.js';
import type { PlanLock } from '../sandboxes/context.js';
import { checkDownloadSignature, downloadSignature } from './download-url.js';
import type { PeerRestore, PeerRestores } from './peer-restore.js';
import type { SnapshotStorage } from './storage.js';
import * as store from './store.js';
import type { Logger } from '../core/logging.js';

export type SnapshotLimits = Config['snapshots'];

function gigabytes(bytes: number): string {
  return `${Number((bytes / 1024 ** 3).toFixed(2))} GB`;
}

export class SnapshotService implements PauseSnapshots {
  private readonly pending = new Set<Promise<unknown>>();
  /** The other nodes of a cluster, for restores into their sandboxes (set once the registry is up). */
  private peers: PeerRestores | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly accounts: PlanLock,
    private readonly runtime: SandboxRuntime,
    private readonly sandboxes: SandboxService,
    private readonly storage: SnapshotStorage,
    private readonly limits: SnapshotLimits,
    private readonly signingKey: Buffer,
    private readonly log: Logger,
    /** This node: archives it stores are on its disk; another node's sandbox gets the archive sent over. */
    private readonly node: { hostId: string; retryAfterSeconds: number },
  ) {}

  reachPeers(peers: PeerRestores): void {
    this.peers = peers;
  }

  /** POST /v1/sandboxes/{id}/snapshots: answers once the archive is stored (status `completed`). */
  async create(accountId: string, sandboxId: string, name: string): Promise<store.SnapshotRow> {
    const sandbox = await this.sandboxes.get(accountId, sandboxId);
    requireSnapshottable(sandbox);
    const row = await this.reserve(sandbox, name, 'manual');
    try {
      const sizeBytes = await this.sandboxes.locks.run(sandboxId, async () => {
        requireSnapshottable(await this.sandboxes.get(accountId, sandboxId));
        return this.copy(row);
      });
      return await this.complete(row, sizeBytes);
    } catch (error) {
      await this.discard(row);
      throw error;
    }
  }

  /**
   * The automatic snapshot of a pause (spec), called with the sandbox just frozen and its lock held: the
   * row is written now and the copy queued behind the lock, so a resume waits for the copy, not the pause.
   * It replaces the sandbox's previous automatic snapshot and does not count toward the per-sandbox limit.
   */
  async takeOnPause(sandbox: SandboxRow): Promise<PauseSnapshot> {
    let row: store.SnapshotRow;
    try {
      row = await this.reserve(sandbox, `pause ${nowIso()}`, 'pause');
    } catch (error) {
      if (error instanceof LimitExceeded) return { snapshot_id: null, snapshot_error: error.message };
      throw error;
    }
    const work = this.sandboxes.locks
      .run(sandbox.id, async () => {
        // Once the pause's answer is written: spawning the copy's first process blocks the event loop for
        // milliseconds, and that would otherwise land before the answer.
        await new Promise((resolve) => setImmediate(resolve));
        return this.copy(row);
      })
      .then((sizeBytes) => this.complete(row, sizeBytes))
      .then(() => this.removePreviousPauseSnapshots(row))
      .catch(async (error: Error) => {
        this.log.warn({ err: error, sandbox_id: sandbox.id, snapshot_id: row.id }, 'automatic pause snapshot failed');
        await this.fail(row, error.message);
      });
    this.track(work);
    return { snapshot_id: row.id };
  }

  async list(accountId: string, sandboxId: string): Promise<store.SnapshotRow[]> {
    await this.sandboxes.get(accountId, sandboxId);
    return store.listSandboxSnapshots(this.db, sandboxId);
  }

  async get(accountId: string, id: string): Promise<store.SnapshotRow> {
    const row = await store.findSnapshot(this.db, accountId, id);
    if (!row) throw new NotFound('snapshot');
    return row;
  }

  async delete(accountId: string, id: string): Promise<void> {
    const row = await this.get(accountId, id);
    if (row.status === 'creating') throw new Conflict('snapshot is still being taken; delete it once it is completed or failed', 'snapshot_not_ready');
    if (row.status === 'completed') await this.requireArchiveHere(row);
    await store.deleteSnapshot(this.db, id);
    await this.storage.remove(row.storage_key);
  }

  /** The sandbox a snapshot of the account was taken of, or null when there is no such snapshot. */
  async sandboxOf(accountId: string, id: string): Promise<string | null> {
    // An id no snapshot could have names none (and a NUL byte would upset PostgreSQL).
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return null;
    return (await store.findSnapshot(this.db, accountId, id))?.sandbox_id ?? null;
  }

  /** A link anyone can use, without an API key, until `expires_at`. */
  async downloadLink(accountId: string, id: string, baseUrl: string): Promise<{ url: string; expires_at: string }> {
    const row = await this.get(accountId, id);
    requireCompleted(row);
    await this.requireArchiveHere(row);
    const expires = Math.floor(Date.now() / 1000) + this.limits.downloadUrlTtlSeconds;
    const signature = downloadSignature(this.signingKey, id, expires);
    return {
      url: `${baseUrl}/v1/snapshot-downloads/${encodeURIComponent(id)}?expires=${expires}&signature=${signature}`,
      expires_at: new Date(expires * 1000).toISOString(),
    };
  }

  /** The archive behind a signed link; 403 for a tampered or expired link. */
  async openDownload(id: string, expires: string, signature: string): Promise<{ row: store.SnapshotRow; stream: Readable }> {
    const check = checkDownloadSignature(this.signingKey, id, expires, signature);
    if (check === 'expired') throw new Forbidden('this download link has expired; ask GET /v1/snapshots/{id}/download for a new one', 'download_link_expired');
    if (check !== 'valid') throw new Forbidden('this download link is not valid (its signature does not match)', 'download_link_invalid');
    const row = await store.findSnapshotById(this.db, id);
    if (!row || row.status !== 'completed') throw new NotFound('snapshot');
    await this.requireArchiveHere(row);
    return { row, stream: await this.storage.read(row.storage_key) };
  }

  /** Overwrites the filesystem of a running sandbox of the same account with the snapshot's. */
  async restore(accountId: string, id: string, sandboxId: string) {
    const row = await this.get(accountId, id);
    requireCompleted(row);
    await this.requireArchiveHere(row);
    const target = await this.sandboxes.get(accountId, sandboxId).catch((error) => {
      if (error instanceof NotFound) throw new NotFound('sandbox (body.sandbox_id)');
      throw error;
    });
    if (target.template !== row.template) {
      throw new Invalid('body.sandbox_id', `is a ${target.template} sandbox; this snapshot holds changes to a ${row.template} sandbox and restores only onto that template`);
    }
    const started = performance.now();
    // Files from a confidential sandbox may hold its secret values: the target becomes confidential too.
    const confidentialSource = await this.sandboxes.isConfidential(accountId, row.sandbox_id);
    if (target.host_id !== this.node.hostId) {
      // The runtime here cannot reach a sandbox of another node: the archive goes to that node instead.
      if (!this.peers || !target.host_id) {
        throw new Conflict(
          `sandbox ${sandboxId} runs on node ${target.host_id ?? '(none)'}, and snapshot ${id} is stored on node ${this.node.hostId}, which is not part of a cluster (no PADDOCK_CLUSTER_SECRET) and cannot reach it`,
          'snapshot_on_other_node',
        );
      }
      const archive = await this.storage.read(row.storage_key);
      try {
        await this.peers.restoreOn(target.host_id, { accountId, sandboxId, snapshotId: row.id, confidential: confidentialSource, archive });
      } finally {
        archive.destroy();
      }
    } else {
      const archive = await this.storage.localFile(row.storage_key);
      try {
        await this.restoreHere(accountId, sandboxId, row.id, archive.file, confidentialSource);
      } finally {
        await archive.release();
      }
    }
    return { snapshot_id: id, sandbox_id: sandboxId, status: 'running', restored_at: nowIso(), duration_ms: Math.round(performance.now() - started) };
  }

  /** A restore the node holding the archive sent here (peer-restore.ts): the archive arrives as a stream. */
  async restoreFromPeer(job: PeerRestore): Promise<void> {
    const target = await this.sandboxes.get(job.accountId, job.sandboxId);
    if (target.host_id !== this.node.hostId) throw new Conflict(`sandbox ${job.sandboxId} does not run on node ${this.node.hostId}`, 'snapshot_on_other_node');
    const file = path.join(this.storage.stagingDir, `${newId('restore')}.tar.gz`);
    try {
      await pipeline(job.archive, createWriteStream(file, { mode: 0o600 }));
      await this.restoreHere(job.accountId, job.sandboxId, job.snapshotId, file, job.confidential);
    } finally {
      await rm(file, { force: true });
    }
  }

  private restoreHere(accountId: string, sandboxId: string, snapshotId: string, archiveFile: string, confidentialSource: boolean): Promise<void> {
    return this.sandboxes.whileRestoring(accountId, sandboxId, () => this.runtime.restoreFilesystem(sandboxId, archiveFile), confidentialSource, { snapshot_id: snapshotId });
  }

  /**
   * Scale-out: a request for a snapshot reaches this node when the node holding the archive (its sandbox's)
   * is not alive; then the archive is not here, and the answer is an honest 503 rather than a 404 or a
   * failed restore. An archive found here is served whoever holds the row (a shared snapshot directory).
   */
  private async requireArchiveHere(row: store.SnapshotRow): Promise<void> {
    if (await this.storage.exists(row.storage_key)) return;
    const holder = (await this.sandboxes.get(row.account_id, row.sandbox_id).catch(() => null))?.host_id;
    if (!holder || holder === this.node.hostId) return;
    const retry = this.node.retryAfterSeconds;
    throw new HttpError(
      503,
      `snapshot ${row.id} is stored on node ${holder}, which is not alive (stopped, or declared lost): it can be downloaded, restored or deleted once that node is back; retry in ${retry} s`,
      'snapshot_unavailable',
      {},
      { 'retry-after': String(retry) },
    );
  }

  /** After a restart: copies this node was running never finished (another node's may still be running). */
  async reconcile(): Promise<void> {
    for (const row of await store.snapshotsInStatus(this.db, 'creating')) {
      const sandbox = await this.sandboxes.get(row.account_id, row.sandbox_id).catch(() => null);
      if (sandbox && sandbox.host_id !== this.node.hostId) continue;
      await this.fail(row, 'the server restarted while the snapshot was being taken');
    }
    for (const name of await readdir(this.storage.stagingDir).catch(() => [] as string[])) await rm(path.join(this.storage.stagingDir, name), { force: true });
  }

  /** Resolves when every automatic snapshot has finished. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private async reserve(sandbox: SandboxRow, name: string, kind: 'manual' | 'pause'): Promise<store.SnapshotRow> {
    const row: store.SnapshotRow = {
      id: newId('snap'),
      account_id: sandbox.account_id,
      sandbox_id: sandbox.id,
      template: sandbox.template,
      name,
      kind,
      status: 'creating',
      error: null,
      size_bytes: 0,
      storage_key: '',
      created_at: nowIso(),
      completed_at: null,
    };
    row.storage_key = row.id;
    await this.db.transaction().execute(async (trx) => {
      await this.accounts.lockForPlanCheck(trx, sandbox.account_id);
      if (kind === 'manual') {
        const count = await store.countSandboxSnapshots(trx, sandbox.id);
        if (count >= this.limits.perSandbox) {
          throw new LimitExceeded(`sandbox ${sandbox.id} already has ${count} snapshots; the limit is ${this.limits.perSandbox} per sandbox. Delete one first`, 'quota_exceeded');
        }
      }
      const used = await store.accountSnapshotBytes(trx, sandbox.account_id);
      if (used >= this.limits.accountMaxBytes) {
        throw new LimitExceeded(`the account's snapshots already use ${gigabytes(used)}; the limit is ${gigabytes(this.limits.accountMaxBytes)} per account. Delete some first`, 'quota_exceeded');
      }
      await store.insertSnapshot(trx, row);
    });
    return row;
  }

  private async copy(row: store.SnapshotRow): Promise<number> {
    const { sizeBytes } = await this.runtime.snapshotFilesystem(row.sandbox_id, this.stagingFile(row));
    return sizeBytes;
  }

  private async complete(row: store.SnapshotRow, sizeBytes: number): Promise<store.SnapshotRow> {
    const staged = this.stagingFile(row);
    if (sizeBytes > this.limits.maxBytes) {
      await rm(staged, { force: true });
      throw new LimitExceeded(`the snapshot is ${gigabytes(sizeBytes)} compressed; the limit is ${gigabytes(this.limits.maxBytes)} per snapshot`, 'quota_exceeded');
    }
    const used = await store.accountSnapshotBytes(this.db, row.account_id);
    if (used + sizeBytes > this.limits.accountMaxBytes) {
      await rm(staged, { force: true });
      throw new LimitExceeded(
        `the snapshot (${gigabytes(sizeBytes)}) would bring the account's snapshots to ${gigabytes(used + sizeBytes)}; the limit is ${gigabytes(this.limits.accountMaxBytes)} per account`,
        'quota_exceeded',
      );
    }
    await this.storage.put(row.storage_key, staged);
    const completed: store.SnapshotRow = { ...row, status: 'completed', size_bytes: sizeBytes, completed_at: nowIso() };
    await store.updateSnapshot(this.db, row.id, { status: completed.status, size_bytes: sizeBytes, completed_at: completed.completed_at });
    return completed;
  }

  private async removePreviousPauseSnapshots(row: store.SnapshotRow): Promise<void> {
    for (const previous of await store.previousPauseSnapshots(this.db, row.sandbox_id, row.id)) {
      if (previous.status === 'creating') continue;
      await store.deleteSnapshot(this.db, previous.id);
      await this.storage.remove(previous.storage_key);
    }
  }

  /** A manual snapshot that failed leaves nothing behind: its error went to the caller. */
  private async discard(row: store.SnapshotRow): Promise<void> {
    await rm(this.stagingFile(row), { force: true });
    await this.storage.remove(row.storage_key).catch(() => {});
    await store.deleteSnapshot(this.db, row.id);
  }

  /** An automatic snapshot that failed stays visible as `failed` with its reason. */
  private async fail(row: store.SnapshotRow, error: string): Promise<void> {
    await rm(this.stagingFile(row), { force: true });
    await store.updateSnapshot(this.db, row.id, { status: 'failed', error, completed_at: nowIso() });
  }

  private stagingFile(row: store.SnapshotRow): string {
    return path.join(this.storage.stagingDir, `${row.id}.tar.gz`);
  }

  private track(work: Promise<unknown>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }
}

function requireSnapshottable(sandbox: SandboxRow): void {
  if (sandbox.status !== 'running' && sandbox.status !== 'paused') {
    throw new Conflict(`sandbox is ${sandbox.status}; snapshots are taken of running or paused sandboxes`, 'sandbox_not_running');
  }
}

function requireCompleted(row: store.SnapshotRow): void {
  if (row.status !== 'completed') throw new Conflict(`snapshot is ${row.status}${row.error ? ` (${row.error})` : ''}; only a completed snapshot can be used`, 'snapshot_not_ready');
}
