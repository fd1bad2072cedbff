// Which templates are ready to create sandboxes from, and what to do about the others.
import { howToMakeReady, templateCatalog } from './catalog.js';
import { templateLowerDirs } from './template-store.js';

export interface TemplateStatus {
  name: string;
  description: string;
  ready: boolean;
  reason?: string;
  how_to_fix?: string;
}

export async function templateStatus(dataDir: string): Promise<TemplateStatus[]> {
  const statuses: TemplateStatus[] = [];
  for (const template of templateCatalog) {
    const ready = (await templateLowerDirs(dataDir, template.name)) !== null;
    const status: TemplateStatus = { name: template.name, description: template.description, ready };
    if (!ready) {
      status.reason = template.source === 'build' ? 'not built yet' : 'cannot be built on this host; needs an imported image';
      status.how_to_fix = howToMakeReady(template);
    }
    statuses.push(status);
  }
  return statuses;
}
