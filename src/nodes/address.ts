// Where other nodes reach this one: PADDOCK_NODE_ADDRESS, else the address the server listens on, with
// a wildcard host replaced by the machine's first non-internal IPv4 address.
import os from 'node:os';
import type { AddressInfo } from 'node:net';

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

export function nodeAddress(configured: string | null, listening: AddressInfo | string | null): string {
  if (configured) return configured;
  if (!listening || typeof listening === 'string') throw new Error('the server listens on no TCP address: set PADDOCK_NODE_ADDRESS');
  let host = listening.address;
  if (WILDCARDS.has(host)) host = firstExternalIpv4() ?? '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${listening.port}`;
}

function firstExternalIpv4(): string | null {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return null;
}
