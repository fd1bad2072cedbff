// Where snapshot archives live. The local directory is the default; several nodes share one
// S3-compatible bucket instead (put = upload, read = GET stream, localFile = download to scratch),
// which this interface is shaped for: keys are opaque, archives are written once and never changed.
import type { Readable } from 'node:stream';

export interface SnapshotStorage {
  /** Takes ownership of the finished archive at `archiveFile` (moved or uploaded) under `key`. */
  put(key: string, archiveFile: string): Promise<void>;
  /** The archive as a stream (downloads). */
  read(key: string): Promise<Readable>;
  /** The archive as a local file for `tar` to read (restores); `release` removes any scratch copy. */
  localFile(key: string): Promise<{ file: string; release(): Promise<void> }>;
  /** Idempotent. */
  remove(key: string): Promise<void>;
  /** Whether the archive is here to read. */
  exists(key: string): Promise<boolean>;
  /** A local directory on the same filesystem as the store, where archives are written before `put`. */
  readonly stagingDir: string;
}
