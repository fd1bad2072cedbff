// A sandbox's root filesystem: the template's layers read-only below, the sandbox's own upper dir above.
// Nothing of the template is ever copied.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mountOverlay, unmount } from '../host/mounts.js';
import type { SandboxPaths } from '../paths.js';
import { createDisk } from './disk.js';

export interface RootfsOptions {
  paths: SandboxPaths;
  lowerDirs: string[];
  diskGb: number;
  hostname: string;
}

export async function createSandboxRootfs(options: RootfsOptions): Promise<void> {
  const { paths } = options;
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  await createDisk(paths.diskImage, paths.diskMount, options.diskGb);
  await mkdir(paths.upperDir, { mode: 0o755 });
  await mkdir(paths.workDir, { mode: 0o700 });
  await mkdir(paths.rootfs, { recursive: true });
  await mountOverlay({ lowerDirs: options.lowerDirs, upperDir: paths.upperDir, workDir: paths.workDir, target: paths.rootfs });
  await writeFile(path.join(paths.rootfs, 'etc/hostname'), `${options.hostname}\n`);
  await writeFile(
    path.join(paths.rootfs, 'etc/hosts'),
    `127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t${options.hostname}\n`,
  );
}

/** Unmounts the overlay, then the disk, then removes every file of the sandbox. Idempotent. */
export async function removeSandboxRootfs(paths: SandboxPaths): Promise<void> {
  await unmount(paths.rootfs);
  await unmount(paths.diskMount);
  await unmount(paths.dir);
  await rm(paths.dir, { recursive: true, force: true });
}
