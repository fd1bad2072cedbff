// Builds the requested templates (all buildable ones by default), skipping those already built from
// today's recipe, then removes the layers earlier builds left that no sandbox uses.
import { findTemplate, templateCatalog, type TemplateDefinition } from './catalog.js';
import { buildBaseLayer } from './base-layer.js';
import { templateFingerprint } from './fingerprint.js';
import { removeStaleLayers } from './stale-layers.js';
import { buildTemplateLayer, layerNeedsBase } from './template-layer.js';
import { readTemplateRecord, templateLowerDirs } from './template-store.js';

export interface BuildReport {
  built: string[];
  skipped: string[];
  durationMs: number;
}

export async function buildTemplates(dataDir: string, names: string[] = [], log: (line: string) => void = () => {}): Promise<BuildReport> {
  const started = Date.now();
  const wanted = names.length > 0 ? names.map(requireBuildable) : templateCatalog.filter((t) => t.source === 'build');
  const pending: TemplateDefinition[] = [];
  const skipped: string[] = [];
  for (const template of wanted) {
    const state = await buildState(dataDir, template);
    if (state === 'current') skipped.push(template.name);
    else pending.push(template);
    if (state === 'outdated') log(`${template.name}: built from an older recipe; building it again`);
  }
  // Layers that only add files are built while debootstrap runs; apt layers wait for the base and then
  // go two at a time (each waits on downloads about half the time, so a pair overlaps well on two cores).
  const addsFilesOnly = pending.filter((template) => !layerNeedsBase(template.recipe!));
  const usesBase = pending.filter((template) => layerNeedsBase(template.recipe!));
  const build = (template: TemplateDefinition): Promise<void> => buildTemplateLayer(dataDir, template, log);
  const filesOnlyDone = inPool(addsFilesOnly, 1, build);
  const baseDone = pending.length > 0 ? buildBaseLayer(dataDir, log) : Promise.resolve();
  const results = await Promise.allSettled([filesOnlyDone, baseDone.then(() => inPool(usesBase, 2, build))]);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  await removeStaleLayers(dataDir, log);
  return { built: pending.map((t) => t.name), skipped, durationMs: Date.now() - started };
}

/**
 * `current`: ready and built from today's recipe (an imported template counts as current: the operator
 * chose that image). `outdated`: ready, from an older recipe; sandboxes still start from it until rebuilt.
 */
export async function buildState(dataDir: string, template: TemplateDefinition): Promise<'current' | 'outdated' | 'missing'> {
  const record = await readTemplateRecord(dataDir, template.name);
  if (!record || !(await templateLowerDirs(dataDir, template.name))) return 'missing';
  return record.source === 'import' || record.fingerprint === templateFingerprint(template) ? 'current' : 'outdated';
}

async function inPool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function requireBuildable(name: string): TemplateDefinition {
  const template = findTemplate(name);
  if (!template) throw new Error(`unknown template "${name}"`);
  if (template.source !== 'build') {
    throw new Error(`template "${name}" cannot be built on this host; import an OCI image archive of it instead`);
  }
  return template;
}
