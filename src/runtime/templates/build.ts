// Builds the requested templates (all buildable ones by default), skipping those already ready.
import { findTemplate, templateCatalog, type TemplateDefinition } from './catalog.js';
import { buildBaseLayer } from './base-layer.js';
import { buildTemplateLayer } from './template-layer.js';
import { templateLowerDirs } from './template-store.js';

export interface BuildReport {
  built: string[];
  skipped: string[];
  durationMs: number;
}

export async function buildTemplates(
  dataDir: string,
  names: string[] = [],
  log: (line: string) => void = () => {},
): Promise<BuildReport> {
  const started = Date.now();
  const wanted = names.length > 0 ? names.map(requireBuildable) : templateCatalog.filter((t) => t.source === 'build');
  const pending: TemplateDefinition[] = [];
  const skipped: string[] = [];
  for (const template of wanted) {
    if (await templateLowerDirs(dataDir, template.name)) skipped.push(template.name);
    else pending.push(template);
  }
  if (pending.length > 0) await buildBaseLayer(dataDir, log);
  // Two at a time: a layer build waits on downloads about half the time, so a pair overlaps well on two cores.
  const queue = [...pending];
  const worker = async (): Promise<void> => {
    for (let template = queue.shift(); template; template = queue.shift()) {
      await buildTemplateLayer(dataDir, template, log);
    }
  };
  await Promise.all([worker(), worker()]);
  return { built: pending.map((t) => t.name), skipped, durationMs: Date.now() - started };
}

function requireBuildable(name: string): TemplateDefinition {
  const template = findTemplate(name);
  if (!template) throw new Error(`unknown template "${name}"`);
  if (template.source !== 'build') {
    throw new Error(`template "${name}" cannot be built on this host; import an OCI image archive of it instead`);
  }
  return template;
}
