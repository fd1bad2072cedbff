// `sandbox.snapshots`: point-in-time copies of the sandbox's filesystem, and restoring one into it.
import type { Http } from '../core/http.js';
import { segment, type SnapshotDownloadLink, type SnapshotInfo, type SnapshotRestored } from './types.js';

export class Snapshots {
  constructor(
    private readonly http: Http,
    private readonly sandboxId: string,
  ) {}

  /** Copies the filesystem (not memory or processes); resolves once stored. */
  create(name: string): Promise<SnapshotInfo> {
    return this.http.request<SnapshotInfo>('POST', `/v1/sandboxes/${segment(this.sandboxId)}/snapshots`, { body: { name } });
  }

  /** This sandbox's snapshots, newest first. */
  list(): Promise<SnapshotInfo[]> {
    return this.http.request<SnapshotInfo[]>('GET', `/v1/sandboxes/${segment(this.sandboxId)}/snapshots`);
  }

  get(snapshotId: string): Promise<SnapshotInfo> {
    return this.http.request<SnapshotInfo>('GET', `/v1/snapshots/${segment(snapshotId)}`);
  }

  /**
   * Replaces this sandbox's files with the snapshot's (one of this sandbox's, or of another sandbox of the
   * same template). Running processes are stopped and the sandbox starts again.
   */
  restore(snapshotId: string): Promise<SnapshotRestored> {
    return this.http.request<SnapshotRestored>('POST', `/v1/snapshots/${segment(snapshotId)}/restore`, { body: { sandbox_id: this.sandboxId }, timeoutMs: 600_000 });
  }

  async delete(snapshotId: string): Promise<void> {
    await this.http.request('DELETE', `/v1/snapshots/${segment(snapshotId)}`);
  }

  /** A pre-signed link to the snapshot's `.tar.gz` that needs no API key (valid 15 minutes by default). */
  downloadUrl(snapshotId: string): Promise<SnapshotDownloadLink> {
    return this.http.request<SnapshotDownloadLink>('GET', `/v1/snapshots/${segment(snapshotId)}/download`);
  }
}
