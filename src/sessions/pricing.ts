// What an llm_call costs when the client did not say: a table of list prices in USD per million tokens,
// matched against the model name by glob patterns. An operator file (PADDOCK_MODEL_PRICES_FILE) adds
// entries that are tried before the built-in ones.
import type { ModelPrice } from '../config.js';

/** List prices as published by the providers; the first matching entry wins, so specific names come first. */
export const BUILT_IN_MODEL_PRICES: readonly ModelPrice[] = [
  price('gpt-4o-mini*', 0.15, 0.6),
  price('gpt-4o*', 2.5, 10),
  price('gpt-4.1-nano*', 0.1, 0.4),
  price('gpt-4.1-mini*', 0.4, 1.6),
  price('gpt-4.1*', 2, 8),
  price('gpt-4-turbo*', 10, 30),
  price('gpt-4*', 30, 60),
  price('gpt-3.5-turbo*', 0.5, 1.5),
  price('o1-mini*', 1.1, 4.4),
  price('o1*', 15, 60),
  price('o3-mini*', 1.1, 4.4),
  price('o3*', 2, 8),
  price('o4-mini*', 1.1, 4.4),
  price('claude-3-5-sonnet*', 3, 15),
  price('claude-3-7-sonnet*', 3, 15),
  price('claude-sonnet-4*', 3, 15),
  price('claude-3-5-haiku*', 0.8, 4),
  price('claude-3-haiku*', 0.25, 1.25),
  price('claude-3-sonnet*', 3, 15),
  price('claude-3-opus*', 15, 75),
  price('claude-opus-4*', 15, 75),
  price('gemini-2.5-pro*', 1.25, 10),
  price('gemini-2.5-flash*', 0.3, 2.5),
  price('gemini-2.0-flash*', 0.1, 0.4),
  price('gemini-1.5-pro*', 1.25, 5),
  price('gemini-1.5-flash*', 0.075, 0.3),
];

function price(match: string, input: number, output: number): ModelPrice {
  return { match, input_usd_per_million_tokens: input, output_usd_per_million_tokens: output };
}

interface CompiledPrice extends ModelPrice {
  pattern: RegExp;
}

function compile(entry: ModelPrice): CompiledPrice {
  const source = entry.match
    .toLowerCase()
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return { ...entry, pattern: new RegExp(`^${source}$`) };
}

/** The name as given, then without a `provider/` path, then without dotted vendor prefixes (`us.anthropic.`). */
function nameCandidates(name: string): string[] {
  const candidates = [name];
  let bare = name.slice(name.lastIndexOf('/') + 1);
  if (bare !== name) candidates.push(bare);
  while (/^[a-z]+\./.test(bare)) {
    bare = bare.replace(/^[a-z]+\./, '');
    candidates.push(bare);
  }
  return candidates;
}

export class PriceTable {
  private readonly entries: CompiledPrice[];
  private readonly cache = new Map<string, CompiledPrice | null>();

  constructor(overrides: readonly ModelPrice[] = []) {
    this.entries = [...overrides, ...BUILT_IN_MODEL_PRICES].map(compile);
  }

  /** Provider prefixes (`openai/gpt-4o`, `anthropic.claude-3-5-sonnet…`) are tried without the prefix too. */
  find(model: string): ModelPrice | null {
    const name = model.toLowerCase();
    let found = this.cache.get(name);
    if (found === undefined) {
      found = null;
      for (const candidate of nameCandidates(name)) {
        found = this.entries.find((entry) => entry.pattern.test(candidate)) ?? null;
        if (found) break;
      }
      if (this.cache.size < 10_000) this.cache.set(name, found);
    }
    return found;
  }

  /** USD for the tokens of one call, or null when the model is not in the table. */
  cost(model: string, tokensIn: number, tokensOut: number): number | null {
    const entry = this.find(model);
    if (!entry) return null;
    return (tokensIn * entry.input_usd_per_million_tokens + tokensOut * entry.output_usd_per_million_tokens) / 1_000_000;
  }
}
