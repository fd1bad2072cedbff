// A sandbox's private disk: a sparse ext4 image of `disk_gb`, loop-mounted. Overlay upper and work dirs
// live on it, so a sandbox that fills its disk gets ENOSPC and the host filesystem is untouched.
import { mkdir, statfs } from 'node:fs/promises';
import { mountImage } from '../host/mounts.js';
import { formatDiskImage, type DiskPool } from './disk-pool.js';

export async function createDisk(image: string, mountPoint: string, sizeGb: number, pool?: DiskPool): Promise<void> {
  const sizeBytes = Math.round(sizeGb * 1024 ** 3);
  if (!(pool && (await pool.take(sizeBytes, image)))) await formatDiskImage(image, sizeBytes);
  await mkdir(mountPoint, { recursive: true });
  await mountImage(image, mountPoint);
}

export async function diskUsedBytes(mountPoint: string): Promise<number> {
  const stats = await statfs(mountPoint);
  return (stats.blocks - stats.bfree) * stats.bsize;
}
