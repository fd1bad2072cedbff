// The sandbox network layer against the real kernel: every mode's reachability, proven with servers
// this test starts in its own namespaces (an "outside world" at 203.0.113.0/24, host services, other
// sandboxes). Requires root, nftables and iproute2.
import { createServer, type Server } from 'node:http';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/runtime/network/command.js';
import { createSandboxNetwork, InvalidAllowlistEntry, netnsExec, type SandboxNetwork } from '../../../src/runtime/network/index.js';
import { TEST_NET, WORLD, createWorld, destroyTestNetwork, hostPrimaryAddress, makeStateDir, probe, removeDir, setDnsRecords, startInNetns, testOptions } from '../../helpers/network-harness.js';
import { waitFor } from '../../helpers/wait-for.js';

const HOST_PORT = 18_471;
const SANDBOX_PORT = 18_472;

let stateDir: string;
let recordsFile: string;
let network: SandboxNetwork;
const hostServers: Server[] = [];

function listen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer((_request, response) => response.end('host service'));
    server.on('error', reject);
    server.listen(port, host, () => resolve());
    hostServers.push(server);
  });
}

const worldA = { kind: 'http', host: WORLD.serverA, port: WORLD.httpPort } as const;
const worldB = { kind: 'http', host: WORLD.serverB, port: WORLD.httpPort } as const;

async function nft(...args: string[]): Promise<string> {
  return (await runCommand('nft', args)).stdout;
}

beforeAll(async () => {
  await destroyTestNetwork();
  stateDir = await makeStateDir();
  recordsFile = join(stateDir, 'dns-records.json');
  await createWorld(recordsFile);
  network = createSandboxNetwork(testOptions(join(stateDir, 'network')));
  await network.init();
  await listen('127.0.0.1', HOST_PORT);
  await listen(TEST_NET.gateway, HOST_PORT);
  await listen('0.0.0.0', HOST_PORT + 1);
});

afterAll(async () => {
  await network?.close();
  for (const server of hostServers) server.close();
  await destroyTestNetwork();
  if (stateDir) await removeDir(stateDir);
});

describe('full mode', () => {
  it('reaches the outside world through NAT (the server sees the host address)', async () => {
    const { netnsPath, ip } = await network.attach('sbx_full_egress', 'full', []);
    try {
      expect(ip).toMatch(/^10\.251\./);
      const [result] = await probe(netnsPath, [worldA]);
      expect(result).toEqual({ ok: true, body: `${WORLD.serverA} ${WORLD.hostAddress}` });
    } finally {
      await network.detach('sbx_full_egress');
    }
  });

  it('cannot reach host services on loopback, the bridge address or other host addresses', async () => {
    const { netnsPath } = await network.attach('sbx_full_host', 'full', []);
    try {
      const primary = await hostPrimaryAddress();
      const targets = [
        { kind: 'tcp', host: '127.0.0.1', port: HOST_PORT },
        { kind: 'tcp', host: TEST_NET.gateway, port: HOST_PORT },
        { kind: 'tcp', host: TEST_NET.gateway, port: HOST_PORT + 1 },
        { kind: 'tcp', host: WORLD.hostAddress, port: HOST_PORT + 1 },
        ...(primary ? [{ kind: 'tcp', host: primary, port: HOST_PORT + 1 } as const] : []),
      ] as const;
      const results = await probe(netnsPath, [...targets], 1000);
      expect(results.map((result) => result.ok)).toEqual(targets.map(() => false));
      // Control: the same services answer the host itself.
      const fromHost = await probe('/proc/self/ns/net', [{ kind: 'tcp', host: TEST_NET.gateway, port: HOST_PORT }]);
      expect(fromHost[0].ok).toBe(true);
      // The route_localnet trick: root in the sandbox sends 127.0.0.1 out of eth0 towards the host.
      await netnsExec(netnsPath, 'sysctl', ['-q', '-w', 'net.ipv4.conf.all.route_localnet=1', 'net.ipv4.conf.eth0.route_localnet=1']);
      await netnsExec(netnsPath, 'ip', ['addr', 'del', '127.0.0.1/8', 'dev', 'lo']);
      const route = await netnsExec(netnsPath, 'ip', ['route', 'add', '127.0.0.1/32', 'via', TEST_NET.gateway, 'dev', 'eth0']);
      expect(route.exitCode).toBe(0);
      expect((await probe(netnsPath, [{ kind: 'tcp', host: '127.0.0.1', port: HOST_PORT }], 1000))[0].ok).toBe(false);
    } finally {
      await network.detach('sbx_full_host');
    }
  });

  it('cannot reach the link-local metadata address, which the host itself can', async () => {
    const { netnsPath } = await network.attach('sbx_full_metadata', 'full', []);
    try {
      const target = { kind: 'http', host: WORLD.metadata, port: WORLD.httpPort } as const;
      expect((await probe('/proc/self/ns/net', [target]))[0].ok).toBe(true);
      expect((await probe(netnsPath, [target], 1000))[0].ok).toBe(false);
    } finally {
      await network.detach('sbx_full_metadata');
    }
  });

  it('cannot reach another sandbox, while the host reaches both (inbound from the host works)', async () => {
    const a = await network.attach('sbx_neighbour_a', 'full', []);
    const b = await network.attach('sbx_neighbour_b', 'full', []);
    try {
      await startInNetns(b.netnsPath, 'listen.mjs', ['0.0.0.0', String(SANDBOX_PORT)]);
      const target = { kind: 'http', host: b.ip!, port: SANDBOX_PORT } as const;
      expect((await probe('/proc/self/ns/net', [target]))[0]).toEqual({ ok: true, body: `sandbox ${b.ip}` });
      expect((await probe(a.netnsPath, [target], 1000))[0].ok).toBe(false);
      // Even with a route that sends the packet through the host instead of across the bridge.
      await netnsExec(a.netnsPath, 'ip', ['route', 'add', `${b.ip}/32`, 'via', TEST_NET.gateway]);
      expect((await probe(a.netnsPath, [target], 1000))[0].ok).toBe(false);
    } finally {
      await network.detach('sbx_neighbour_a');
      await network.detach('sbx_neighbour_b');
    }
  });

  it('cannot use IPv6 or another source address', async () => {
    const { netnsPath } = await network.attach('sbx_full_spoof', 'full', []);
    try {
      const sysctl = await netnsExec(netnsPath, 'cat', ['/proc/sys/net/ipv6/conf/all/disable_ipv6']);
      expect(sysctl.stdout.trim()).toBe('1');
      expect((await netnsExec(netnsPath, 'ip', ['-6', 'addr', 'show'])).stdout.trim()).toBe('');
      await netnsExec(netnsPath, 'ip', ['addr', 'flush', 'dev', 'eth0']);
      await netnsExec(netnsPath, 'ip', ['addr', 'add', '10.251.200.200/16', 'dev', 'eth0']);
      await netnsExec(netnsPath, 'ip', ['route', 'add', 'default', 'via', TEST_NET.gateway]);
      expect((await probe(netnsPath, [worldA], 1000))[0].ok).toBe(false);
    } finally {
      await network.detach('sbx_full_spoof');
    }
  });
});

describe('none mode', () => {
  it('has loopback only', async () => {
    const { netnsPath, ip } = await network.attach('sbx_none', 'none', []);
    try {
      expect(ip).toBeNull();
      const links = JSON.parse((await netnsExec(netnsPath, 'ip', ['-j', 'link', 'show'])).stdout) as Array<{ ifname: string }>;
      expect(links.map((link) => link.ifname)).toEqual(['lo']);
      await startInNetns(netnsPath, 'listen.mjs', ['127.0.0.1', String(SANDBOX_PORT)]);
      const results = await probe(netnsPath, [{ kind: 'http', host: '127.0.0.1', port: SANDBOX_PORT }, worldA], 1000);
      expect(results.map((result) => result.ok)).toEqual([true, false]);
    } finally {
      await network.detach('sbx_none');
    }
  });
});

describe('allowlist mode', () => {
  it('allows an IP literal and nothing else', async () => {
    const { netnsPath } = await network.attach('sbx_allow_ip', 'allowlist', [WORLD.serverA]);
    try {
      const results = await probe(netnsPath, [worldA, worldB], 1000);
      expect(results.map((result) => result.ok)).toEqual([true, false]);
    } finally {
      await network.detach('sbx_allow_ip');
    }
  });

  it('allows a CIDR', async () => {
    const { netnsPath } = await network.attach('sbx_allow_cidr', 'allowlist', ['203.0.113.16/28']);
    try {
      const results = await probe(netnsPath, [worldA, worldB], 1000);
      expect(results.map((result) => result.ok)).toEqual([false, true]);
    } finally {
      await network.detach('sbx_allow_cidr');
    }
  });

  it('resolves hostnames through DNS and follows their address when it changes', async () => {
    await setDnsRecords(recordsFile, { 'api.paddock.test': [WORLD.serverA] });
    const { netnsPath } = await network.attach('sbx_allow_name', 'allowlist', ['api.paddock.test']);
    try {
      const dns = { kind: 'dns', server: WORLD.dns, name: 'api.paddock.test' } as const;
      expect(await probe(netnsPath, [dns, worldA, worldB], 1000)).toMatchObject([{ ok: true, body: WORLD.serverA }, { ok: true }, { ok: false }]);
      await setDnsRecords(recordsFile, { 'api.paddock.test': [WORLD.serverB] });
      const allowSet = async () => nft('list', 'table', 'inet', TEST_NET.tableName);
      await waitFor(
        'the allow set to follow the new DNS answer',
        async () => {
          const table = await allowSet();
          return table.includes(WORLD.serverB) && !table.includes(WORLD.serverA);
        },
        5000,
      );
      expect(await probe(netnsPath, [dns, worldA, worldB], 1000)).toMatchObject([{ ok: true, body: WORLD.serverB }, { ok: false }, { ok: true }]);
    } finally {
      await network.detach('sbx_allow_name');
    }
  });

  it('never opens denied ranges (metadata, the host, other sandboxes) even when listed', async () => {
    const { netnsPath } = await network.attach('sbx_allow_denied', 'allowlist', [WORLD.metadata, TEST_NET.subnet, '127.0.0.1']);
    try {
      const results = await probe(
        netnsPath,
        [
          { kind: 'http', host: WORLD.metadata, port: WORLD.httpPort },
          { kind: 'tcp', host: TEST_NET.gateway, port: HOST_PORT },
          { kind: 'tcp', host: '127.0.0.1', port: HOST_PORT },
        ],
        1000,
      );
      expect(results.map((result) => result.ok)).toEqual([false, false, false]);
    } finally {
      await network.detach('sbx_allow_denied');
    }
  });

  it('rejects wildcards with a clear error and leaves nothing behind', async () => {
    await expect(network.attach('sbx_allow_wild', 'allowlist', ['*.example.com'])).rejects.toThrow(InvalidAllowlistEntry);
    expect((await runCommand('ip', ['netns', 'list'])).stdout).not.toContain('sbx_allow_wild');
  });
});

describe('lifecycle', () => {
  it('detach leaves no trace and is idempotent', async () => {
    const { ip } = await network.attach('sbx_detach', 'allowlist', [WORLD.serverA]);
    await network.detach('sbx_detach');
    await network.detach('sbx_detach');
    expect((await runCommand('ip', ['netns', 'list'])).stdout).not.toContain('sbx_detach');
    const links = (await runCommand('ip', ['-o', 'link', 'show'])).stdout;
    expect(links).not.toMatch(/pdt[0-9a-f]{10}/);
    const tables = (await nft('list', 'table', 'inet', TEST_NET.tableName)) + (await nft('list', 'table', 'bridge', TEST_NET.tableName));
    expect(tables).not.toMatch(/sbx_[0-9a-f]{10}|allow_[0-9a-f]{10}/);
    expect(tables).not.toContain(`${ip} `);
    expect(await readdir(join(stateDir, 'network', 'leases'))).toEqual([]);
  });

  it('detach removes what is left when part of the sandbox rules is already gone', async () => {
    // Detach removes exactly what attach added in one transaction; when that fails, it reads the tables.
    const { ip } = await network.attach('sbx_partial', 'full', []);
    await nft('delete', 'element', 'inet', TEST_NET.tableName, 'egress', `{ ${ip} }`);
    await network.detach('sbx_partial');
    const tables = (await nft('list', 'table', 'inet', TEST_NET.tableName)) + (await nft('list', 'table', 'bridge', TEST_NET.tableName));
    expect(tables).not.toContain(`${ip} `);
    expect((await runCommand('ip', ['netns', 'list'])).stdout).not.toContain('sbx_partial');
    expect(await readdir(join(stateDir, 'network', 'leases'))).toEqual([]);
  });

  it('gives 50 concurrent attaches distinct addresses', async () => {
    const ids = Array.from({ length: 50 }, (_, index) => `sbx_concurrent_${index}`);
    try {
      const attached = await Promise.all(ids.map((id) => network.attach(id, 'full', [])));
      expect(new Set(attached.map((entry) => entry.ip)).size).toBe(50);
    } finally {
      await Promise.all(ids.map((id) => network.detach(id)));
    }
    expect(await readdir(join(stateDir, 'network', 'leases'))).toEqual([]);
  }, 60_000);

  it('after a restart keeps live sandboxes (and their addresses) and removes leftovers', async () => {
    const live = await network.attach('sbx_live', 'full', []);
    const dead = await network.attach('sbx_dead', 'allowlist', [WORLD.serverA]);
    // A crash mid-attach can leave a veth behind that no lease names.
    await runCommand('ip', ['link', 'add', 'pdt0123456789', 'type', 'dummy']);
    await network.close();
    network = createSandboxNetwork(testOptions(join(stateDir, 'network')));
    await network.init();
    try {
      expect(await network.reconcile(['sbx_live'])).toEqual(['sbx_dead']);
      expect((await runCommand('ip', ['netns', 'list'])).stdout).not.toContain('sbx_dead');
      expect((await runCommand('ip', ['link', 'show', 'pdt0123456789'])).exitCode).not.toBe(0);
      expect(await nft('list', 'table', 'inet', TEST_NET.tableName)).not.toContain(`${dead.ip} `);
      expect((await probe(live.netnsPath, [worldA]))[0].ok).toBe(true);
      expect(await network.attach('sbx_live', 'full', [])).toEqual(live);
    } finally {
      await network.detach('sbx_live');
      await network.detach('sbx_dead');
    }
  });

  it('lets sandboxes reach only the host ports Paddock deliberately exposes', async () => {
    const exposing = createSandboxNetwork(testOptions(join(stateDir, 'network'), { exposedHostPorts: [{ protocol: 'tcp', port: HOST_PORT }] }));
    await exposing.init();
    const { netnsPath } = await exposing.attach('sbx_exposed', 'full', []);
    try {
      const results = await probe(
        netnsPath,
        [
          { kind: 'tcp', host: TEST_NET.gateway, port: HOST_PORT },
          { kind: 'tcp', host: TEST_NET.gateway, port: HOST_PORT + 1 },
        ],
        1000,
      );
      expect(results.map((result) => result.ok)).toEqual([true, false]);
    } finally {
      await exposing.detach('sbx_exposed');
      await exposing.close();
      await network.init();
    }
  });

  it('init is idempotent and keeps attached sandboxes working', async () => {
    const { netnsPath } = await network.attach('sbx_reinit', 'full', []);
    try {
      const before = await nft('list', 'table', 'inet', TEST_NET.tableName);
      await network.init();
      expect(await nft('list', 'table', 'inet', TEST_NET.tableName)).toBe(before);
      expect((await probe(netnsPath, [worldA]))[0].ok).toBe(true);
    } finally {
      await network.detach('sbx_reinit');
    }
  });

  it('keeps forwarding when iptables FORWARD drops the bridge traffic (Docker-style hosts)', async () => {
    // From a known state: set-up (beforeAll) already inserted ACCEPT rules for the bridge when this host's
    // FORWARD chain held rules of its own, as a host that ran other networks may.
    for (const direction of ['-i', '-o']) {
      while ((await runCommand('iptables', ['-D', 'FORWARD', direction, TEST_NET.bridgeName, '-j', 'ACCEPT'])).exitCode === 0);
    }
    await runCommand('iptables', ['-A', 'FORWARD', '-i', TEST_NET.bridgeName, '-j', 'DROP']);
    await runCommand('iptables', ['-A', 'FORWARD', '-o', TEST_NET.bridgeName, '-j', 'DROP']);
    const { netnsPath } = await network.attach('sbx_iptables', 'full', []);
    try {
      expect((await probe(netnsPath, [worldA], 1000))[0].ok).toBe(false);
      await network.init();
      expect((await probe(netnsPath, [worldA]))[0].ok).toBe(true);
    } finally {
      await network.detach('sbx_iptables');
      for (const direction of ['-i', '-o']) {
        for (const verdict of ['ACCEPT', 'DROP']) await runCommand('iptables', ['-D', 'FORWARD', direction, TEST_NET.bridgeName, '-j', verdict]);
      }
    }
  });
});
