import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isNodeCall, NODE_CALL_HEADER, NODE_CALL_TIME_HEADER, signNodeCall } from './node-calls.js';

const secret = randomBytes(32);
const path = '/v1/internal/snapshot-restores/sbx_1?account_id=acc_1&snapshot_id=snap_1&confidential=0';

describe('node calls', () => {
  it('verifies a call signed with the cluster secret for the same method, path and query', () => {
    expect(isNodeCall(secret, 'PUT', path, signNodeCall(secret, 'PUT', path))).toBe(true);
  });

  it('refuses another method, path or query, another secret, a stale or future time, and a lone node', () => {
    const headers = signNodeCall(secret, 'PUT', path, 1_000_000);
    expect(isNodeCall(secret, 'PUT', path, headers, 1_000_000 + 29_000)).toBe(true);
    expect(isNodeCall(secret, 'PUT', path, headers, 1_000_000 + 31_000)).toBe(false);
    expect(isNodeCall(secret, 'PUT', path, headers, 1_000_000 - 31_000)).toBe(false);
    expect(isNodeCall(secret, 'POST', path, headers, 1_000_000)).toBe(false);
    expect(isNodeCall(secret, 'PUT', path.replace('acc_1', 'acc_2'), headers, 1_000_000)).toBe(false);
    expect(isNodeCall(randomBytes(32), 'PUT', path, headers, 1_000_000)).toBe(false);
    expect(isNodeCall(null, 'PUT', path, headers, 1_000_000)).toBe(false);
  });

  it('refuses missing, malformed and forged headers', () => {
    const now = Date.now();
    expect(isNodeCall(secret, 'PUT', path, {}, now)).toBe(false);
    expect(isNodeCall(secret, 'PUT', path, { [NODE_CALL_HEADER]: 'a'.repeat(64), [NODE_CALL_TIME_HEADER]: String(now) }, now)).toBe(false);
    expect(isNodeCall(secret, 'PUT', path, { [NODE_CALL_HEADER]: 'zz', [NODE_CALL_TIME_HEADER]: String(now) }, now)).toBe(false);
    const signed = signNodeCall(secret, 'PUT', path, now);
    expect(isNodeCall(secret, 'PUT', path, { ...signed, [NODE_CALL_TIME_HEADER]: `${now}x` }, now)).toBe(false);
  });
});
