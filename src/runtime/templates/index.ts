export { TEMPLATE_NAMES, templateCatalog, findTemplate, howToMakeReady, type TemplateDefinition, type TemplateName } from './catalog.js';
export { buildTemplates, type BuildReport } from './build.js';
export { importTemplate } from './import.js';
export { templateStatus, type TemplateStatus } from './status.js';
export { runTemplatesCommand } from './command.js';
export { templateLowerDirs } from './template-store.js';
