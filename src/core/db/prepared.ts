// Queries built once and run many times with new parameters. Building and compiling a Kysely query costs
// more than running a small indexed read on SQLite, so hot reads (usage, the quota admission check) build
// theirs once per database with placeholder values and then only swap the parameters in.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database } from './schema.js';

const PLACEHOLDER = '\u0000paddock-parameter-';

/**
 * `build` receives one placeholder per parameter and must pass each to the query as a plain bound value
 * (never into SQL text, nor transformed). Each compiled parameter is mapped back to the placeholder it came
 * from; any other bound value is a constant of the query.
 */
export function prepared<Row>(build: (db: Kysely<Database>, ...placeholders: string[]) => Compilable<Row>) {
  const arity = build.length - 1;
  // Per parameter of the compiled query: the index of the caller's parameter, or a constant the builder bound.
  const compiled = new WeakMap<Kysely<Database>, { sql: string; sources: ({ index: number } | { constant: unknown })[] }>();
  return async (db: Kysely<Database>, ...params: unknown[]): Promise<Row[]> => {
    if (params.length !== arity) throw new Error(`prepared query: ${arity} parameters expected, got ${params.length}`);
    let query = compiled.get(db);
    if (!query) {
      const placeholders = Array.from({ length: arity }, (_, i) => `${PLACEHOLDER}${i}`);
      const template = build(db, ...placeholders).compile();
      const sources = template.parameters.map((parameter) => {
        const index = placeholders.indexOf(parameter as string);
        if (index < 0 && typeof parameter === 'string' && parameter.includes(PLACEHOLDER)) throw new Error(`prepared query: a placeholder was transformed (${parameter}) in ${template.sql}`);
        return index < 0 ? { constant: parameter } : { index };
      });
      query = { sql: template.sql, sources };
      compiled.set(db, query);
    }
    const parameters = query.sources.map((source) => ('index' in source ? params[source.index] : source.constant));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(query.sql, parameters));
    return result.rows;
  };
}
