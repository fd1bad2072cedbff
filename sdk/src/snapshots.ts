// `paddock.snapshots`: a snapshot by its id alone (read, delete, download link, restore into a sandbox);
// creating and listing belong to a sandbox (`sandbox.snapshots`).
import type { Http } from './core/http.js';
import { segment, type SnapshotDownloadLink, type SnapshotInfo, type SnapshotRestored } from './sandboxes/types.js';

export class SnapshotsById {
  constructor(private readonly http: Http) {}

  get(snapshotId: string): Promise<SnapshotInfo> {
    return this.http.request<SnapshotInfo>('GET', `/v1/snapshots/${segment(snapshotId)}`);
  }

  /**
   * Replaces `sandboxId`'s files with the snapshot's (a snapshot of that sandbox, or of another sandbox of the
   * same template). Running processes are stopped and the sandbox starts again.
   */
  restore(snapshotId: string, sandboxId: string): Promise<SnapshotRestored> {
    return this.http.request<SnapshotRestored>('POST', `/v1/snapshots/${segment(snapshotId)}/restore`, { body: { sandbox_id: sandboxId }, timeoutMs: 600_000 });
  }

  async delete(snapshotId: string): Promise<void> {
    await this.http.request('DELETE', `/v1/snapshots/${segment(snapshotId)}`);
  }

  /** A pre-signed link to the snapshot's `.tar.gz` that needs no API key (valid 15 minutes by default). */
  downloadUrl(snapshotId: string): Promise<SnapshotDownloadLink> {
    return this.http.request<SnapshotDownloadLink>('GET', `/v1/snapshots/${segment(snapshotId)}/download`);
  }
}
