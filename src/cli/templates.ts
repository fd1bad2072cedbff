// `paddock templates`: delegates to the runtime layer's template builder.
import type { Config } from '../config.js';

export async function templatesCommand(args: string[], config: Config): Promise<number> {
  const { runTemplatesCommand } = await import('../runtime/templates/index.js');
  return runTemplatesCommand(args, config.dataDir);
}
