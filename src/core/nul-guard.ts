// PostgreSQL's text cannot hold U+0000: a NUL reaching a query as a parameter fails it with a 500, on
// PostgreSQL only. No id can contain one, so a path parameter with a NUL names nothing (404, as any
// unknown id); a query value or a JSON body string or key with one is refused with a 400 naming it
// (names, commands, env values: none can hold a NUL; binary data travels base64-encoded, files raw).
// Before validation, on both databases alike. A route whose body may hold NULs declares `acceptsNul`
// (ingest refuses a bad event by index and keeps the rest).
import type { FastifyInstance } from 'fastify';
import { HttpError, Invalid } from './errors.js';

/** Where the first NUL is (`body.stages[0].name`), or null. Iterative: bodies may nest deeper than the stack. */
export function findNul(value: unknown, root: string): string | null {
  const pending: [unknown, string][] = [[value, root]];
  while (pending.length) {
    const [item, at] = pending.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\0')) return at;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i], `${at}[${i}]`]);
    } else if (item !== null && typeof item === 'object' && !Buffer.isBuffer(item)) {
      const entries = Object.entries(item);
      const badKey = entries.find(([key]) => key.includes('\0'));
      if (badKey) return `${at} key ${JSON.stringify(badKey[0].replaceAll('\0', '\\0'))}`;
      // Reversed onto the stack, so the first field in the document is reported first.
      for (let i = entries.length - 1; i >= 0; i--) pending.push([entries[i][1], `${at}.${entries[i][0]}`]);
    }
  }
  return null;
}

export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const param = findNul(request.params, 'params');
    if (param) throw new HttpError(404, `${param} contains a NUL character (U+0000): nothing has such an id`, 'not_found');
    const query = findNul(request.query, 'query');
    if (query) throw new Invalid(query, 'must not contain NUL characters (U+0000)');
    const body = request.routeOptions.config?.acceptsNul ? null : findNul(request.body, 'body');
    if (body) throw new Invalid(body, 'must not contain NUL characters (U+0000)');
  });
}
