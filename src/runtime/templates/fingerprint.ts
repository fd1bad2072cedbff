// What a built layer is made from, as a short hash. A layer is named after its hash, so a changed
// recipe builds a new layer beside the old one (running sandboxes keep theirs) instead of reusing it.
import { createHash } from 'node:crypto';
import { basePackages, debianSuite, type TemplateDefinition } from './catalog.js';

/** Raise when the build steps themselves change what a layer holds (the recipes are hashed already). */
const buildStepsRevision = 1;

function shortHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12);
}

export function baseLayerFingerprint(): string {
  return shortHash({ buildStepsRevision, debianSuite, variant: 'minbase', basePackages });
}

/** A template layer sits on the base it was built over, so a new base makes every template new too. */
export function templateFingerprint(template: TemplateDefinition): string {
  return shortHash({ buildStepsRevision, base: baseLayerFingerprint(), recipe: template.recipe ?? null });
}
