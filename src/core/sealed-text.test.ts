import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TextSealer } from './sealed-text.js';

describe('TextSealer', () => {
  const sealer = new TextSealer(randomBytes(32));
  const secret = `whsec_${randomBytes(24).toString('base64')}`;

  it('seals a value so that it opens for its row only, with a fresh IV each time', () => {
    const sealed = sealer.seal(secret, 'whe_1');
    expect(sealed).toMatch(/^sealed:v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(sealed).not.toContain(secret);
    expect(sealer.seal(secret, 'whe_1')).not.toBe(sealed);
    expect(sealer.open(sealed, 'whe_1')).toBe(secret);
    expect(() => sealer.open(sealed, 'whe_2')).toThrow();
  });

  it('refuses a value sealed under another key, or changed', () => {
    const sealed = sealer.seal(secret, 'whe_1');
    expect(() => new TextSealer(randomBytes(32)).open(sealed, 'whe_1')).toThrow();
    const parts = sealed.split(':');
    const body = Buffer.from(parts[4], 'base64');
    body[0] ^= 1;
    expect(() => sealer.open([...parts.slice(0, 4), body.toString('base64')].join(':'), 'whe_1')).toThrow();
    expect(() => sealer.open('sealed:v1:only-one-part', 'whe_1')).toThrow('a sealed value is damaged');
  });

  it('answers a value stored before sealing as it is', () => {
    expect(sealer.open(secret, 'whe_1')).toBe(secret);
  });

  it('needs a 32-byte key', () => {
    expect(() => new TextSealer(randomBytes(16))).toThrow('a TextSealer needs a 32-byte key');
  });
});
