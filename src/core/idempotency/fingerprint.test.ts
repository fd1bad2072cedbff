import { describe, expect, it } from 'vitest';
import { canonicalJson, requestFingerprint } from './fingerprint.js';

describe('request fingerprint', () => {
  it('ignores key order at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }));
  });

  it('tells values and types apart', () => {
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson(undefined)).not.toBe(canonicalJson(null));
    expect(canonicalJson({})).not.toBe(canonicalJson(undefined));
  });

  it('depends on method, path, body and the server key', () => {
    const key = Buffer.alloc(32, 1);
    const base = requestFingerprint(key, 'POST', '/v1/sandboxes', { template: 'base' });
    expect(requestFingerprint(key, 'POST', '/v1/sandboxes', { template: 'base' })).toBe(base);
    expect(requestFingerprint(key, 'PUT', '/v1/sandboxes', { template: 'base' })).not.toBe(base);
    expect(requestFingerprint(key, 'POST', '/v1/pipelines', { template: 'base' })).not.toBe(base);
    expect(requestFingerprint(key, 'POST', '/v1/sandboxes', { template: 'node' })).not.toBe(base);
    expect(requestFingerprint(Buffer.alloc(32, 2), 'POST', '/v1/sandboxes', { template: 'base' })).not.toBe(base);
  });
});
