import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { nodeAddress } from './address.js';

describe('a node address', () => {
  it('is PADDOCK_NODE_ADDRESS when set, whatever the server listens on', () => {
    expect(nodeAddress('http://10.0.0.5:8080', { address: '0.0.0.0', family: 'IPv4', port: 9000 })).toBe('http://10.0.0.5:8080');
  });

  it('is the listening address otherwise, IPv6 in brackets', () => {
    expect(nodeAddress(null, { address: '127.0.0.1', family: 'IPv4', port: 9000 })).toBe('http://127.0.0.1:9000');
    expect(nodeAddress(null, { address: '::1', family: 'IPv6', port: 9000 })).toBe('http://[::1]:9000');
  });

  it("replaces a wildcard host with the machine's first non-internal IPv4 address", () => {
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal);
    const expected = `http://${external?.address ?? '127.0.0.1'}:9000`;
    expect(nodeAddress(null, { address: '0.0.0.0', family: 'IPv4', port: 9000 })).toBe(expected);
    expect(nodeAddress(null, { address: '::', family: 'IPv6', port: 9000 })).toBe(expected);
  });

  it('refuses a server listening on a unix socket without PADDOCK_NODE_ADDRESS', () => {
    expect(() => nodeAddress(null, '/run/paddock.sock')).toThrow(/PADDOCK_NODE_ADDRESS/);
  });
});
