// An OCI sandbox's filesystem as an archive (its overlay's upper dir) and back, and the name files
// (/etc/resolv.conf, /etc/hosts) written into it at start and after a restore.
import { rm } from 'node:fs/promises';
import { mountOverlay, unmount } from '../host/mounts.js';
import { sandboxNameFiles } from '../network/index.js';
import type { SandboxPaths } from '../paths.js';
import { OutsideRootfs, writeFileInRootfs } from '../rootfs/confined-write.js';
import { compressTar, replaceUpperDir, tarUpperDir } from '../rootfs/upper-archive.js';
import { templateLowerDirs } from '../templates/template-store.js';
import { TemplateNotReady } from '../errors.js';
import type { FilesystemSnapshot, NetworkMode } from '../runtime.js';
import { removeCgroups, type LiveSandboxes } from './live-sandboxes.js';

export async function snapshotSandboxFilesystem(live: LiveSandboxes, id: string, archiveFile: string): Promise<FilesystemSnapshot> {
  const record = await live.record(id);
  const tarFile = `${archiveFile}.tar`;
  const frozenAlready = record.paused;
  const started = performance.now();
  if (!frozenAlready) await live.driver.freeze(id, record.cgroupsPath);
  try {
    await tarUpperDir(live.paths(id).upperDir, tarFile, frozenAlready);
  } catch (error) {
    await rm(tarFile, { force: true });
    throw error;
  } finally {
    if (!frozenAlready) await live.driver.thaw(id, record.cgroupsPath);
  }
  const frozenMs = frozenAlready ? 0 : performance.now() - started;
  return { sizeBytes: await compressTar(tarFile, archiveFile), frozenMs };
}

export async function restoreSandboxFilesystem(live: LiveSandboxes, id: string, archiveFile: string): Promise<void> {
  const record = await live.runningRecord(id);
  const lowerDirs = await templateLowerDirs(live.options.dataDir, record.template);
  if (!lowerDirs) throw new TemplateNotReady(record.template, 'the template was removed from this server');
  const paths = live.paths(id);
  // Every process goes: a file swapped under a running program would leave it in a state no snapshot had.
  await live.driver.cli.remove(id);
  live.forgetProcesses(id);
  await unmount(paths.rootfs);
  await replaceUpperDir(paths.upperDir, paths.workDir, archiveFile);
  await mountOverlay({ lowerDirs, upperDir: paths.upperDir, workDir: paths.workDir, target: paths.rootfs });
  // The archive may come from another sandbox of the account: this one keeps its own name and address.
  // An archive whose /etc points outside the sandbox (a symlink it made) gets nothing written through
  // it: the sandbox starts with the /etc it chose, and the host's files stay untouched.
  try {
    await writeFileInRootfs(paths.rootfs, 'etc/hostname', `${id}\n`);
    await writeNameFiles(live, paths, id, record.networkMode, record.ip);
  } catch (error) {
    if (!(error instanceof OutsideRootfs)) throw error;
  }
  await removeCgroups(record.cgroupsPath);
  await live.driver.start(id, paths.bundleDir, record.netnsPath, record.networkMode);
  await live.saveRecord({ ...record, paused: false });
}

export async function writeNameFiles(live: LiveSandboxes, paths: SandboxPaths, id: string, mode: NetworkMode, ip: string | null): Promise<void> {
  const nameFiles = await sandboxNameFiles({ dnsServers: live.options.dnsServers }, { id, mode, ip });
  await writeFileInRootfs(paths.rootfs, 'etc/resolv.conf', nameFiles.resolvConf);
  await writeFileInRootfs(paths.rootfs, 'etc/hosts', nameFiles.hosts);
}
