import { describe, expect, it } from 'vitest';
import { maskSecretValues } from './mask.js';

describe('maskSecretValues', () => {
  it('hides every occurrence, longest value first', () => {
    expect(maskSecretValues('token=abc123 again abc123 and abc', ['abc', 'abc123'])).toBe('token=*** again *** and ***');
  });
  it('leaves text without secrets alone and ignores empty values', () => {
    expect(maskSecretValues('plain', ['', 'zzz'])).toBe('plain');
  });
});
