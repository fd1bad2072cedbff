import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AddressesExhausted, IpAllocator } from '../../../src/runtime/network/ip-allocator.js';
import { parseCidr } from '../../../src/runtime/network/ipv4.js';

const subnet = parseCidr('10.9.0.0/24')!;
const first = subnet.network + 2;
const last = subnet.network + 254;
let dir: string;

function allocator(lastHost = last): IpAllocator {
  return new IpAllocator(dir, first, lastHost, '10.9.0.0/24');
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paddock-ip-allocator-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('IpAllocator', () => {
  it('gives concurrent callers distinct addresses', async () => {
    const leases = allocator();
    await leases.load();
    const ips = await Promise.all(Array.from({ length: 100 }, (_, index) => leases.allocate(`sbx_${index}`, 'full', [])));
    expect(new Set(ips.map((lease) => lease.ip)).size).toBe(100);
  });

  it('keeps leases and settings across a restart and never hands a leased address out again', async () => {
    const before = allocator();
    await before.load();
    const kept = await before.allocate('sbx_kept', 'allowlist', ['example.com']);
    const after = allocator();
    await after.load();
    expect(after.get('sbx_kept')).toEqual(kept);
    expect((await after.allocate('sbx_kept', 'allowlist', ['example.com'])).ip).toBe(kept.ip);
    expect((await after.allocate('sbx_other', 'full', [])).ip).not.toBe(kept.ip);
  });

  it('frees an address on release and reports exhaustion clearly', async () => {
    const leases = allocator(first + 1);
    await leases.load();
    await leases.allocate('sbx_a', 'full', []);
    await leases.allocate('sbx_b', 'full', []);
    await expect(leases.allocate('sbx_c', 'full', [])).rejects.toThrow(AddressesExhausted);
    await leases.release('sbx_a');
    await expect(leases.allocate('sbx_c', 'full', [])).resolves.toMatchObject({ ip: '10.9.0.2' });
  });

  it('drops a claim a crash left empty', async () => {
    const leases = allocator();
    await leases.load();
    await writeFile(join(dir, 'leases', '10.9.0.2'), '');
    await leases.load();
    expect(await readdir(join(dir, 'leases'))).toEqual([]);
  });
});
