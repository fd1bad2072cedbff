// Imports a template from an OCI image archive (umoci unpack via skopeo), for bases this host cannot build.
import { mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../host/command.js';
import { runtimePaths } from '../paths.js';
import { addPaddockMountPoints } from './base-layer.js';
import { findTemplate } from './catalog.js';
import { templateDir, writeTemplateRecord } from './template-store.js';

/** Accepts an OCI archive (tar), an OCI layout directory, or a docker-archive tar. */
export async function importTemplate(dataDir: string, name: string, archivePath: string): Promise<void> {
  if (!findTemplate(name)) throw new Error(`unknown template "${name}"`);
  const archive = path.resolve(archivePath);
  const isDirectory = (await stat(archive)).isDirectory();
  const cacheDir = runtimePaths(dataDir).templateCacheDir;
  await mkdir(cacheDir, { recursive: true });
  const scratch = await mkdtemp(path.join(cacheDir, `import-${name}-`));
  try {
    const layout = path.join(scratch, 'image');
    await copyToOciLayout(archive, isDirectory, layout);
    const bundle = path.join(scratch, 'bundle');
    await run('umoci', ['unpack', '--image', `${layout}:paddock`, bundle], { timeoutMs: 20 * 60_000 });
    const rootfs = path.join(bundle, 'rootfs');
    await requireShell(rootfs);
    await addPaddockMountPoints(rootfs);
    const dir = templateDir(dataDir, name);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await rename(rootfs, path.join(dir, 'layer'));
    await writeTemplateRecord(dataDir, { name, source: 'import', layers: [`${name}/layer`], readyAt: new Date().toISOString() });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function copyToOciLayout(archive: string, isDirectory: boolean, layout: string): Promise<void> {
  const destination = `oci:${layout}:paddock`;
  const sources = isDirectory ? [`oci:${archive}`] : [`oci-archive:${archive}`, `docker-archive:${archive}`];
  let lastError: unknown;
  for (const source of sources) {
    try {
      await run('skopeo', ['copy', '--quiet', source, destination], { timeoutMs: 20 * 60_000 });
      return;
    } catch (error) {
      lastError = error;
      await rm(layout, { recursive: true, force: true });
    }
  }
  throw new Error(`cannot read ${archive} as an OCI or docker image archive: ${String(lastError)}`);
}

async function requireShell(rootfs: string): Promise<void> {
  try {
    await stat(path.join(rootfs, 'bin/sh'));
  } catch {
    throw new Error('the image has no /bin/sh; Paddock runs every command through /bin/sh -c');
  }
}
