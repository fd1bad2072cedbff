// Builds the shared Debian 12 base layer once per recipe (debootstrap minbase); every built template sits on it.
import { copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../host/command.js';
import { debianMirrorFor, hostSourceFiles } from '../host/apt-sources.js';
import { runtimePaths } from '../paths.js';
import { makeDirInRootfs, writeFileInRootfs } from '../rootfs/confined-write.js';
import { aptCleanupScript, runInChroot } from './chroot.js';
import { basePackages, debianSuite } from './catalog.js';
import { baseLayerFingerprint } from './fingerprint.js';

/** The current base layer, relative to the templates dir; an older one keeps its own name until removed. */
export function baseLayerName(): string {
  return `_layers/base-${baseLayerFingerprint()}`;
}

export function baseLayerDir(dataDir: string): string {
  return path.join(runtimePaths(dataDir).templatesDir, baseLayerName());
}

function baseReadyMarker(dataDir: string): string {
  return `${baseLayerDir(dataDir)}.ready`;
}

export async function isBaseLayerReady(dataDir: string): Promise<boolean> {
  try {
    await stat(baseReadyMarker(dataDir));
    return true;
  } catch {
    return false;
  }
}

/** Files Paddock needs in every root filesystem: the workspace and the mount point of its init. */
export async function addPaddockMountPoints(rootDir: string): Promise<void> {
  await makeDirInRootfs(rootDir, 'workspace');
  await makeDirInRootfs(rootDir, '.paddock');
  await writeFileInRootfs(rootDir, '.paddock/init', '', 0o755);
}

async function copyHostAptSources(rootDir: string): Promise<void> {
  const listDir = path.join(rootDir, 'etc/apt/sources.list.d');
  await rm(path.join(rootDir, 'etc/apt/sources.list'), { force: true });
  await mkdir(listDir, { recursive: true });
  for (const file of await hostSourceFiles()) {
    const target = file === '/etc/apt/sources.list' ? path.join(rootDir, 'etc/apt/sources.list') : path.join(listDir, path.basename(file));
    await copyFile(file, target);
  }
}

export async function buildBaseLayer(dataDir: string, log: (line: string) => void): Promise<void> {
  if (await isBaseLayerReady(dataDir)) return;
  const finalDir = baseLayerDir(dataDir);
  const partialDir = `${finalDir}.partial`;
  await rm(partialDir, { recursive: true, force: true });
  await rm(finalDir, { recursive: true, force: true });
  await mkdir(path.dirname(finalDir), { recursive: true });
  const mirror = await debianMirrorFor(debianSuite);
  const started = Date.now();
  log(`base: debootstrap --variant=minbase ${debianSuite} from ${mirror}`);
  await run('debootstrap', ['--variant=minbase', `--include=${basePackages.join(',')}`, debianSuite, partialDir, mirror], {
    timeoutMs: 20 * 60_000,
  });
  log(`base: debootstrap done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await copyHostAptSources(partialDir);
  // Package lists live in the base so template layers install without downloading them again.
  await runInChroot(partialDir, `apt-get update -qq\napt-get -y -qq upgrade\n${aptCleanupScript}`);
  await addPaddockMountPoints(partialDir);
  await rm(path.join(partialDir, 'etc/hostname'), { force: true });
  await rename(partialDir, finalDir);
  await writeFile(baseReadyMarker(dataDir), new Date().toISOString());
  log(`base: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
