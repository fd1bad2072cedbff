// Module hooks (run on Node's loader thread) that record each resolved file URL, one per line.
import fs from 'node:fs';

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.startsWith('file:')) fs.appendFileSync(process.env.LOADED_MODULES_LOG, `${result.url}\n`);
  return result;
}
