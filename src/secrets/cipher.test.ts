import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret } from './cipher.js';

describe('secret cipher', () => {
  const key = randomBytes(32);

  it('round-trips and never stores the value in the clear', () => {
    const stored = encryptSecret(key, 'acc_1', 'TOKEN', 'hunter2-value');
    expect(stored).not.toContain('hunter2');
    expect(decryptSecret(key, 'acc_1', 'TOKEN', stored)).toBe('hunter2-value');
  });

  it('refuses a ciphertext moved to another account or name, or read with another key', () => {
    const stored = encryptSecret(key, 'acc_1', 'TOKEN', 'value');
    expect(() => decryptSecret(key, 'acc_2', 'TOKEN', stored)).toThrow();
    expect(() => decryptSecret(key, 'acc_1', 'OTHER', stored)).toThrow();
    expect(() => decryptSecret(randomBytes(32), 'acc_1', 'TOKEN', stored)).toThrow();
  });
});
