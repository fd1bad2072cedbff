import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readModelPriceFile } from './config.js';

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
