import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../config.js';
import { PriceTable, readModelPriceFile } from './pricing.js';

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

describe('operator price file', () => {
  const write = (content: string) => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prices-')), 'prices.json');
    fs.writeFileSync(file, content);
    return file;
  };

  it('reads a valid file', () => {
    const file = write(JSON.stringify([{ match: 'llama-3*', input_usd_per_million_tokens: 0.2, output_usd_per_million_tokens: 0.4 }]));
    expect(readModelPriceFile(file)).toEqual([{ match: 'llama-3*', input_usd_per_million_tokens: 0.2, output_usd_per_million_tokens: 0.4 }]);
  });

  it.each([
    ['not JSON', '{', /cannot read .* as JSON/],
    ['an object', '{}', /must hold a JSON array/],
    ['a missing price', JSON.stringify([{ match: 'x*', input_usd_per_million_tokens: 1 }]), /\[0\]\.output_usd_per_million_tokens must be a non-negative number/],
    ['a negative price', JSON.stringify([{ match: 'x*', input_usd_per_million_tokens: -1, output_usd_per_million_tokens: 1 }]), /input_usd_per_million_tokens must be a non-negative/],
    ['an empty pattern', JSON.stringify([{ match: ' ', input_usd_per_million_tokens: 1, output_usd_per_million_tokens: 1 }]), /\.match must be a model name pattern/],
    ['an unknown field', JSON.stringify([{ match: 'x', input_usd_per_million_tokens: 1, output_usd_per_million_tokens: 1, per: 'token' }]), /\.per is not a known field/],
  ])('refuses a file with %s, at start-up, saying what is wrong', (_name, content, message) => {
    const file = write(content);
    expect(() => readModelPriceFile(file)).toThrow(message);
    expect(() => loadConfig({ PADDOCK_MODEL_PRICES_FILE: file })).toThrow(ConfigError);
  });

  it('refuses a missing file at start-up', () => {
    expect(() => loadConfig({ PADDOCK_MODEL_PRICES_FILE: '/nonexistent/prices.json' })).toThrow(/PADDOCK_MODEL_PRICES_FILE: cannot read/);
  });
});
