// Formatted, unused disk images kept ready per size, so creating a sandbox only renames one and mounts
// it; formatting moves off the critical path. Images are sparse (a few MB each on the host).
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { run } from '../host/command.js';

export async function formatDiskImage(image: string, sizeBytes: number): Promise<void> {
  const file = await open(image, 'w', 0o600);
  try {
    await file.truncate(sizeBytes);
  } finally {
    await file.close();
  }
  // Lazy init and no discard keep mkfs at a few milliseconds on a sparse file; no reserved blocks for root,
  // since the sandbox's user is root and would otherwise get 5% more than disk_gb.
  await run('mkfs.ext4', ['-q', '-F', '-m', '0', '-E', 'lazy_itable_init=1,lazy_journal_init=1,nodiscard', image]);
}

export class DiskPool {
  private readonly refilling = new Map<number, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly dir: string,
    private readonly imagesPerSize = 2,
  ) {}

  /** Moves a ready image of `sizeBytes` to `destination`; false when none is ready. Refills in the background. */
  async take(sizeBytes: number, destination: string): Promise<boolean> {
    this.refill(sizeBytes);
    for (const name of await this.readyImages(sizeBytes)) {
      try {
        await rename(path.join(this.dir, name), destination);
        return true;
      } catch {
        // another create took it first
      }
    }
    return false;
  }

  /** No more refills (images already made stay for the next start); resolves once the image being formatted is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.refilling.values());
  }

  private refill(sizeBytes: number): void {
    if (this.stopped || this.refilling.has(sizeBytes)) return;
    const filling = this.fill(sizeBytes)
      .catch(() => {})
      .finally(() => this.refilling.delete(sizeBytes));
    this.refilling.set(sizeBytes, filling);
  }

  private async fill(sizeBytes: number): Promise<void> {
    // Not recursive: if the data dir was removed meanwhile, the pool must not bring it back.
    await mkdir(this.dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    while (!this.stopped && (await this.readyImages(sizeBytes)).length < this.imagesPerSize) {
      const partial = path.join(this.dir, `partial-${randomUUID()}`);
      try {
        await formatDiskImage(partial, sizeBytes);
        await rename(partial, path.join(this.dir, `${sizeBytes}-${randomUUID()}.img`));
      } finally {
        await rm(partial, { force: true });
      }
    }
  }

  private async readyImages(sizeBytes: number): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names.filter((name) => name.startsWith(`${sizeBytes}-`) && name.endsWith('.img'));
  }
}
