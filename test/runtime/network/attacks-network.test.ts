// Network attacks at the layer that stops them (the same battery runs through the API in
// test/sandboxes/attacks.test.ts): posing as a neighbour's MAC, and DNS answers for an allowlisted
// name that point into denied ranges. Requires root, nftables, iproute2 and python3.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/runtime/network/command.js';
import { createSandboxNetwork, netnsExec, type SandboxNetwork } from '../../../src/runtime/network/index.js';
import { HIJACK_ATTACK } from '../../helpers/frame-attacks.js';
import { TEST_NET, WORLD, createWorld, destroyTestNetwork, makeStateDir, probe, removeDir, setDnsRecords, startInNetns, testOptions } from '../../helpers/network-harness.js';

const SANDBOX_PORT = 18_481;

let stateDir: string;
let recordsFile: string;
let network: SandboxNetwork;

beforeAll(async () => {
  await destroyTestNetwork();
  stateDir = await makeStateDir();
  recordsFile = join(stateDir, 'dns-records.json');
  await createWorld(recordsFile);
  network = createSandboxNetwork(testOptions(join(stateDir, 'network')));
  await network.init();
});

afterAll(async () => {
  await network?.close();
  await destroyTestNetwork();
  if (stateDir) await removeDir(stateDir);
});

async function eth0Mac(netnsPath: string): Promise<string> {
  return JSON.parse((await netnsExec(netnsPath, 'ip', ['-j', 'link', 'show', 'dev', 'eth0'])).stdout)[0].address;
}

async function fdbPortOf(mac: string): Promise<string | undefined> {
  const entries = JSON.parse((await runCommand('bridge', ['-j', 'fdb', 'show', 'br', TEST_NET.bridgeName])).stdout) as Array<{ mac: string; ifname: string }>;
  return entries.find((entry) => entry.mac === mac)?.ifname;
}

/** The attacker sends frames as the victim for 6 s while the host talks to the victim; returns what the attacker caught. */
async function hijack(attacker: { netnsPath: string; ip: string | null }, victim: { netnsPath: string; ip: string | null }) {
  const victimMac = await eth0Mac(victim.netnsPath);
  const sniffing = netnsExec(attacker.netnsPath, 'python3', ['-c', HIJACK_ATTACK, attacker.ip!, TEST_NET.gateway, victimMac], { timeoutMs: 20_000 });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const fromHost = await probe(
    '/proc/self/ns/net',
    Array.from({ length: 5 }, () => ({ kind: 'http', host: victim.ip!, port: SANDBOX_PORT }) as const),
    2000,
  );
  const caught = JSON.parse((await sniffing).stdout) as { frames_for_neighbour: number };
  return { caught: caught.frames_for_neighbour, hostReached: fromHost.map((result) => result.ok), victimMac };
}

describe('the bridge', () => {
  it("keeps a neighbour's traffic on the neighbour's port when a sandbox sends with the neighbour's MAC", async () => {
    const attacker = await network.attach('sbx_mac_attacker', 'full', []);
    const victim = await network.attach('sbx_mac_victim', 'full', []);
    try {
      await startInNetns(victim.netnsPath, 'listen.mjs', ['0.0.0.0', String(SANDBOX_PORT)]);
      const { caught, hostReached, victimMac } = await hijack(attacker, victim);
      expect(caught).toBe(0);
      expect(hostReached).toEqual([true, true, true, true, true]);
      expect(await fdbPortOf(victimMac)).toMatch(new RegExp(`^${TEST_NET.interfacePrefix}`));
      expect(await fdbPortOf(victimMac)).not.toBe(await fdbPortOf(await eth0Mac(attacker.netnsPath)));
    } finally {
      await network.detach('sbx_mac_attacker');
      await network.detach('sbx_mac_victim');
    }
  }, 60_000);

  it('pins the MAC of a sandbox attached by an older version (random MAC, learning port) at the next start', async () => {
    const attacker = await network.attach('sbx_old_attacker', 'full', []);
    const victim = await network.attach('sbx_old_victim', 'full', []);
    try {
      // What an attach made before MACs were pinned looks like: a random MAC, a learning, flooding port, no port_macs entry.
      const victimPort = (await fdbPortOf(await eth0Mac(victim.netnsPath)))!;
      await runCommand('nft', ['flush', 'set', 'bridge', TEST_NET.tableName, 'port_macs']);
      await netnsExec(victim.netnsPath, 'ip', ['link', 'set', 'eth0', 'address', '0a:11:22:33:44:55']);
      await netnsExec(attacker.netnsPath, 'ip', ['link', 'set', 'eth0', 'address', '0a:11:22:33:44:66']);
      await runCommand('ip', ['link', 'set', victimPort, 'type', 'bridge_slave', 'learning', 'on', 'flood', 'on']);
      await network.close();
      network = createSandboxNetwork(testOptions(join(stateDir, 'network')));
      await network.init();
      await network.reconcile(['sbx_old_attacker', 'sbx_old_victim']);
      await startInNetns(victim.netnsPath, 'listen.mjs', ['0.0.0.0', String(SANDBOX_PORT)]);
      const { caught, hostReached } = await hijack(attacker, victim);
      expect(caught).toBe(0);
      expect(hostReached).toEqual([true, true, true, true, true]);
      expect(await fdbPortOf('0a:11:22:33:44:55')).toBe(victimPort);
    } finally {
      await network.detach('sbx_old_attacker');
      await network.detach('sbx_old_victim');
    }
  }, 60_000);
});

describe('allowlist DNS', () => {
  it('keeps denied ranges closed when an allowlisted name resolves into them (loopback, the bridge, metadata, private)', async () => {
    await setDnsRecords(recordsFile, { 'rebind.paddock.test': ['127.0.0.1', TEST_NET.gateway, WORLD.metadata, '10.9.9.9', WORLD.serverA] });
    const { netnsPath } = await network.attach('sbx_rebind', 'allowlist', ['rebind.paddock.test']);
    try {
      const results = await probe(
        netnsPath,
        [
          { kind: 'http', host: WORLD.serverA, port: WORLD.httpPort },
          { kind: 'http', host: WORLD.metadata, port: WORLD.httpPort },
          { kind: 'http', host: WORLD.serverB, port: WORLD.httpPort },
        ],
        1000,
      );
      expect(results.map((result) => result.ok)).toEqual([true, false, false]);
      const allowed = (await runCommand('nft', ['list', 'table', 'inet', TEST_NET.tableName])).stdout;
      expect(allowed).toContain(WORLD.serverA);
    } finally {
      await network.detach('sbx_rebind');
    }
  });
});
