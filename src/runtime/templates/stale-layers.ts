// Removes the layers a rebuild left behind: those no template record names any more, unless the overlay
// of a sandbox still mounts them (that sandbox keeps its files; a later build removes the layer).
import { readdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { overlayLowerDirs } from '../host/mounts.js';
import { runtimePaths } from '../paths.js';
import { templateCatalog } from './catalog.js';
import { readTemplateRecord, templateDir } from './template-store.js';

/** Layer directories as built by this and earlier versions: `base`, `base-<fingerprint>`, `layer`, `layer-<fingerprint>`. */
const baseLayerEntry = /^base(-[0-9a-f]+)?$/;
const templateLayerEntry = /^layer(-[0-9a-f]+)?$/;

export async function removeStaleLayers(dataDir: string, log: (line: string) => void): Promise<void> {
  const { templatesDir, layersDir } = runtimePaths(dataDir);
  const named = new Set<string>();
  for (const template of templateCatalog) {
    for (const layer of (await readTemplateRecord(dataDir, template.name))?.layers ?? []) named.add(path.join(templatesDir, layer));
  }
  const candidates = await layerEntries(layersDir, baseLayerEntry);
  for (const template of templateCatalog) candidates.push(...(await layerEntries(templateDir(dataDir, template.name), templateLayerEntry)));
  // Mounts name layers by the path they were given, which may run through a symlink to this data dir.
  const mounted = new Set(await Promise.all((await overlayLowerDirs()).map((dir) => realpath(dir).catch(() => dir))));
  for (const dir of candidates) {
    if (named.has(dir)) continue;
    const relative = path.relative(templatesDir, dir);
    if (mounted.has(await realpath(dir))) {
      log(`kept ${relative}: a sandbox still uses it (a later build removes it)`);
      continue;
    }
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}.ready`, { force: true });
    log(`removed ${relative}: left by an earlier build`);
  }
}

async function layerEntries(parent: string, pattern: RegExp): Promise<string[]> {
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory() && pattern.test(entry.name)).map((entry) => path.join(parent, entry.name));
}
