// Snapshot archives as files under one directory (PADDOCK_SNAPSHOT_DIR, default <data>/snapshots).
import { createReadStream } from 'node:fs';
import { access, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { SnapshotStorage } from './storage.js';

const KEY = /^[A-Za-z0-9_-]{1,128}$/;

export class LocalSnapshotStorage implements SnapshotStorage {
  readonly stagingDir: string;
  private readonly objectsDir: string;

  constructor(dir: string) {
    this.stagingDir = path.join(dir, 'staging');
    this.objectsDir = path.join(dir, 'objects');
  }

  async init(): Promise<void> {
    await mkdir(this.stagingDir, { recursive: true, mode: 0o700 });
    await mkdir(this.objectsDir, { recursive: true, mode: 0o700 });
  }

  async put(key: string, archiveFile: string): Promise<void> {
    await rename(archiveFile, this.file(key));
  }

  async read(key: string): Promise<Readable> {
    await access(this.file(key));
    return createReadStream(this.file(key));
  }

  async localFile(key: string): Promise<{ file: string; release(): Promise<void> }> {
    await access(this.file(key));
    return { file: this.file(key), release: async () => {} };
  }

  async remove(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    return access(this.file(key)).then(
      () => true,
      () => false,
    );
  }

  private file(key: string): string {
    if (!KEY.test(key)) throw new Error(`invalid snapshot storage key ${key}`);
    return path.join(this.objectsDir, `${key}.tar.gz`);
  }
}
