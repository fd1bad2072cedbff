// Host-side writes into a root filesystem that may contain hostile symlinks (imported images, or a
// sandbox's own changes): the parent must resolve inside the root, and the file itself is replaced, never followed.
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export class OutsideRootfs extends Error {
  constructor(readonly relativePath: string) {
    super(`${relativePath} resolves outside the root filesystem`);
  }
}

async function confinedParent(rootfs: string, relativePath: string): Promise<string> {
  const root = await realpath(rootfs);
  const parent = await realpath(path.join(root, path.dirname(relativePath)));
  if (parent !== root && !parent.startsWith(`${root}/`)) throw new OutsideRootfs(relativePath);
  return parent;
}

export async function writeFileInRootfs(rootfs: string, relativePath: string, content: string, mode = 0o644): Promise<void> {
  const parent = await confinedParent(rootfs, relativePath);
  const target = path.join(parent, path.basename(relativePath));
  await rm(target, { force: true });
  await writeFile(target, content, { mode, flag: 'wx' });
}

export async function makeDirInRootfs(rootfs: string, relativePath: string, mode = 0o755): Promise<void> {
  const parent = await confinedParent(rootfs, relativePath);
  await mkdir(path.join(parent, path.basename(relativePath)), { mode }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await confinedParent(rootfs, path.join(relativePath, 'x'));
}
