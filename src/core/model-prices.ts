// What a model's list price looks like, and the operator's price file (PADDOCK_MODEL_PRICES_FILE) that
// config reads at start and sessions' price table puts before the built-in prices.
import fs from 'node:fs';

export interface ModelPrice {
  /** Glob over the lower-cased model name; `*` matches any run of characters. */
  match: string;
  input_usd_per_million_tokens: number;
  output_usd_per_million_tokens: number;
}

export function modelPrice(match: string, input: number, output: number): ModelPrice {
  return { match, input_usd_per_million_tokens: input, output_usd_per_million_tokens: output };
}

/** Reads and checks an operator price file: a JSON array of ModelPrice. Throws an Error saying what is wrong. */
export function readModelPriceFile(file: string): ModelPrice[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${file} must hold a JSON array of {match, input_usd_per_million_tokens, output_usd_per_million_tokens}`);
  return parsed.map((entry, index) => {
    const at = `${file}[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`${at} must be an object`);
    const { match, input_usd_per_million_tokens: input, output_usd_per_million_tokens: output, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length) throw new Error(`${at}.${unknown[0]} is not a known field`);
    if (typeof match !== 'string' || match.trim() === '' || match.length > 200) throw new Error(`${at}.match must be a model name pattern such as "gpt-4o*"`);
    for (const [name, value] of [['input_usd_per_million_tokens', input], ['output_usd_per_million_tokens', output]] as const) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error(`${at}.${name} must be a non-negative number (USD per million tokens)`);
    }
    return modelPrice(match.trim(), input as number, output as number);
  });
}
