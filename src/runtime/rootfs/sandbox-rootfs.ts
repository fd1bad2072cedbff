// A sandbox's root filesystem: the template's layers read-only below, the sandbox's own upper dir above.
// Nothing of the template is ever copied.
import { mkdir, rm } from 'node:fs/promises';
import { mountOverlay, unmount } from '../host/mounts.js';
import type { SandboxPaths } from '../paths.js';
import { makeDirInRootfs, writeFileInRootfs } from './confined-write.js';
import { createDisk } from './disk.js';
import type { DiskPool } from './disk-pool.js';

export interface RootfsOptions {
  paths: SandboxPaths;
  lowerDirs: string[];
  diskGb: number;
  hostname: string;
  diskPool?: DiskPool;
}

export async function createSandboxRootfs(options: RootfsOptions): Promise<void> {
  const { paths } = options;
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  await createDisk(paths.diskImage, paths.diskMount, options.diskGb, options.diskPool);
  await mkdir(paths.upperDir, { mode: 0o755 });
  await mkdir(paths.workDir, { mode: 0o700 });
  await mkdir(paths.rootfs, { recursive: true });
  await mountOverlay({ lowerDirs: options.lowerDirs, upperDir: paths.upperDir, workDir: paths.workDir, target: paths.rootfs });
  await makeDirInRootfs(paths.rootfs, 'etc');
  await writeFileInRootfs(paths.rootfs, 'etc/hostname', `${options.hostname}\n`);
}

/** Unmounts the overlay, then the disk, then removes every file of the sandbox. Idempotent. */
export async function removeSandboxRootfs(paths: SandboxPaths): Promise<void> {
  await unmount(paths.rootfs, paths.diskMount, paths.dir);
  await rm(paths.dir, { recursive: true, force: true });
}
