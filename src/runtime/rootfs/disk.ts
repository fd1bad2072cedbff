// A sandbox's private disk: a sparse ext4 image of `disk_gb`, loop-mounted. Overlay upper and work dirs
// live on it, so a sandbox that fills its disk gets ENOSPC and the host filesystem is untouched.
import { mkdir, open, statfs } from 'node:fs/promises';
import { run } from '../host/command.js';
import { mountImage } from '../host/mounts.js';

export async function createDisk(image: string, mountPoint: string, sizeGb: number): Promise<void> {
  const file = await open(image, 'w', 0o600);
  try {
    await file.truncate(Math.round(sizeGb * 1024 ** 3));
  } finally {
    await file.close();
  }
  // Lazy init and no discard keep mkfs at a few milliseconds on a sparse file; no reserved blocks for root,
  // since the sandbox's user is root and would otherwise get 5% more than disk_gb.
  await run('mkfs.ext4', ['-q', '-F', '-m', '0', '-E', 'lazy_itable_init=1,lazy_journal_init=1,nodiscard', image]);
  await mkdir(mountPoint, { recursive: true });
  await mountImage(image, mountPoint);
}

export async function diskUsedBytes(mountPoint: string): Promise<number> {
  const stats = await statfs(mountPoint);
  return (stats.blocks - stats.bfree) * stats.bsize;
}
