import { describe, expect, it } from 'vitest';
import { PriceTable } from './pricing.js';

describe('model price table', () => {
  const table = new PriceTable();

  it.each([
    ['gpt-4o', 2.5, 10],
    ['gpt-4o-2024-08-06', 2.5, 10],
    ['GPT-4o-mini', 0.15, 0.6],
    ['openai/gpt-4o-mini-2024-07-18', 0.15, 0.6],
    ['claude-3-5-sonnet-20241022', 3, 15],
    ['anthropic/claude-3-5-sonnet-latest', 3, 15],
    ['us.anthropic.claude-3-5-haiku-20241022-v1:0', 0.8, 4],
    ['gpt-4.1-mini', 0.4, 1.6],
    ['gemini-1.5-flash-002', 0.075, 0.3],
  ])('prices %s at $%s / $%s per million tokens in / out', (model, input, output) => {
    expect(table.find(model)).toMatchObject({ input_usd_per_million_tokens: input, output_usd_per_million_tokens: output });
  });

  it('computes USD from per-million prices and answers null for unknown models', () => {
    expect(table.cost('gpt-4o', 1000, 500)).toBeCloseTo(0.0075, 12);
    expect(table.cost('my-local-llama', 1000, 500)).toBeNull();
  });

  it('tries operator entries before the built-in ones', () => {
    const custom = new PriceTable([{ match: 'gpt-4o*', input_usd_per_million_tokens: 1, output_usd_per_million_tokens: 1 }]);
    expect(custom.cost('gpt-4o-mini', 1_000_000, 0)).toBe(1);
    expect(custom.cost('claude-3-opus', 1_000_000, 0)).toBe(15);
  });
});
