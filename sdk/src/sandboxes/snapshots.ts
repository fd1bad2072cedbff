// `sandbox.snapshots`: point-in-time copies of the sandbox's filesystem, and restoring one into it.
import type { Http } from '../core/http.js';
import { SnapshotsById } from '../snapshots.js';
import { segment, type SnapshotDownloadLink, type SnapshotInfo, type SnapshotRestored } from './types.js';

export class Snapshots {
  private readonly byId: SnapshotsById;

  constructor(
    private readonly http: Http,
    private readonly sandboxId: string,
  ) {
    this.byId = new SnapshotsById(http);
  }

  /** Copies the filesystem (not memory or processes); resolves once stored. */
  create(name: string): Promise<SnapshotInfo> {
    return this.http.request<SnapshotInfo>('POST', `/v1/sandboxes/${segment(this.sandboxId)}/snapshots`, { body: { name } });
  }

  /** This sandbox's snapshots, newest first. */
  list(): Promise<SnapshotInfo[]> {
    return this.http.request<SnapshotInfo[]>('GET', `/v1/sandboxes/${segment(this.sandboxId)}/snapshots`);
  }

  get(snapshotId: string): Promise<SnapshotInfo> {
    return this.byId.get(snapshotId);
  }

  /** Replaces this sandbox's files with the snapshot's; see `paddock.snapshots.restore`. */
  restore(snapshotId: string): Promise<SnapshotRestored> {
    return this.byId.restore(snapshotId, this.sandboxId);
  }

  delete(snapshotId: string): Promise<void> {
    return this.byId.delete(snapshotId);
  }

  downloadUrl(snapshotId: string): Promise<SnapshotDownloadLink> {
    return this.byId.downloadUrl(snapshotId);
  }
}
