import { describe, expect, it } from 'vitest';
import { isId, newId } from './ids.js';

describe('newId', () => {
  it('is prefixed, fixed-length and sorts by creation time', () => {
    const a = newId('acc', 1_700_000_000_000);
    const b = newId('acc', 1_700_000_000_001);
    expect(a).toMatch(/^acc_[0-9a-z]{26}$/);
    expect(isId('acc', a)).toBe(true);
    expect(a < b).toBe(true);
  });
  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('key')));
    expect(ids.size).toBe(10_000);
  });
});
