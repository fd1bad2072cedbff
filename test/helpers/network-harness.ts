// Test scaffolding for the network layer: an "outside world" namespace routed from the host, servers
// started inside namespaces, a probe run from inside a sandbox, and cleanup that works after a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../../src/runtime/network/command.js';
import { netnsExec, type NetworkOptions } from '../../src/runtime/network/index.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

export const TEST_NET = {
  bridgeName: 'pdtbr0',
  subnet: '10.251.0.0/16',
  gateway: '10.251.0.1',
  tableName: 'paddock_test',
  interfacePrefix: 'pdt',
  netnsPrefix: 'pdt-',
};

/** The world: 203.0.113.0/24 (TEST-NET-3) behind a veth, plus a fake metadata address routed there. */
export const WORLD = {
  netns: 'pdtworld',
  hostVeth: 'pwld0',
  hostAddress: '203.0.113.1',
  address: '203.0.113.2',
  serverA: '203.0.113.10',
  serverB: '203.0.113.20',
  dns: '203.0.113.53',
  metadata: '169.254.169.254',
  httpPort: 8080,
};

export function testOptions(stateDir: string, overrides: Partial<NetworkOptions> = {}): NetworkOptions {
  return {
    stateDir,
    bridgeName: TEST_NET.bridgeName,
    subnet: TEST_NET.subnet,
    tableName: TEST_NET.tableName,
    interfacePrefix: TEST_NET.interfacePrefix,
    netnsPrefix: TEST_NET.netnsPrefix,
    dnsServers: [WORLD.dns],
    dnsRefreshIntervalMs: 300,
    dnsGraceMs: 0,
    warn: () => undefined,
    ...overrides,
  };
}

async function must(file: string, args: string[]): Promise<void> {
  const result = await runCommand(file, args);
  if (result.exitCode !== 0) throw new Error(`${file} ${args.join(' ')}: ${result.stderr}`);
}

async function quiet(file: string, args: string[]): Promise<void> {
  await runCommand(file, args).catch(() => undefined);
}

const children = new Set<ChildProcess>();

/** Starts `node script arg…` inside a namespace and resolves once it prints "ready". */
export function startInNetns(netnsPath: string, script: string, args: string[]): Promise<ChildProcess> {
  const child = spawn('nsenter', [`--net=${netnsPath}`, '--', process.execPath, join(fixtures, script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${output}`)), 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
}

export function stopChildren(): void {
  for (const child of children) child.kill('SIGKILL');
}

export type Target = { kind: 'http'; host: string; port: number } | { kind: 'tcp'; host: string; port: number } | { kind: 'dns'; server: string; name: string };

export interface ProbeResult {
  ok: boolean;
  body?: string;
  error?: string;
}

/** Tries every target at once from inside the namespace. Blocked connections show as timeouts. */
export async function probe(netnsPath: string, targets: Target[], timeoutMs = 1500): Promise<ProbeResult[]> {
  const result = await netnsExec(netnsPath, process.execPath, [join(fixtures, 'probe.mjs'), JSON.stringify(targets), String(timeoutMs)]);
  if (result.exitCode !== 0) throw new Error(`probe failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as ProbeResult[];
}

export async function createWorld(recordsFile: string): Promise<void> {
  await must('ip', ['netns', 'add', WORLD.netns]);
  await must('ip', ['link', 'add', WORLD.hostVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', WORLD.netns]);
  await must('ip', ['addr', 'add', `${WORLD.hostAddress}/24`, 'dev', WORLD.hostVeth]);
  await must('ip', ['link', 'set', WORLD.hostVeth, 'up']);
  for (const address of [WORLD.address, WORLD.serverA, WORLD.serverB, WORLD.dns]) {
    await must('ip', ['-n', WORLD.netns, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
  }
  await must('ip', ['-n', WORLD.netns, 'addr', 'add', `${WORLD.metadata}/32`, 'dev', 'eth0']);
  await must('ip', ['-n', WORLD.netns, 'link', 'set', 'eth0', 'up']);
  await must('ip', ['-n', WORLD.netns, 'link', 'set', 'lo', 'up']);
  await must('ip', ['-n', WORLD.netns, 'route', 'add', 'default', 'via', WORLD.hostAddress]);
  // Without Paddock's rules the host would happily forward a sandbox's packets to this "metadata service".
  await must('ip', ['route', 'add', `${WORLD.metadata}/32`, 'via', WORLD.address]);
  await writeFile(recordsFile, JSON.stringify({}));
  const http = [WORLD.serverA, WORLD.serverB, WORLD.metadata].map((host) => ({ host, port: WORLD.httpPort }));
  await startInNetns(`/run/netns/${WORLD.netns}`, 'world.mjs', [JSON.stringify({ http, dns: { host: WORLD.dns, port: 53, recordsFile } })]);
}

export async function setDnsRecords(recordsFile: string, records: Record<string, string[]>): Promise<void> {
  await writeFile(recordsFile, JSON.stringify(records));
}

/** Removes every trace of the tests: also what a crashed earlier run left behind. */
export async function destroyTestNetwork(): Promise<void> {
  stopChildren();
  await quiet('ip', ['route', 'del', `${WORLD.metadata}/32`, 'via', WORLD.address]);
  await quiet('ip', ['link', 'del', WORLD.hostVeth]);
  await quiet('ip', ['netns', 'del', WORLD.netns]);
  const list = await runCommand('ip', ['-j', 'netns', 'list']);
  const namespaces = list.stdout.trim() ? (JSON.parse(list.stdout) as Array<{ name: string }>) : [];
  for (const { name } of namespaces) {
    if (name.startsWith(TEST_NET.netnsPrefix)) await quiet('ip', ['netns', 'del', name]);
  }
  const links = JSON.parse((await runCommand('ip', ['-j', 'link', 'show'])).stdout) as Array<{ ifname: string }>;
  for (const { ifname } of links) {
    if (ifname.startsWith(TEST_NET.interfacePrefix)) await quiet('ip', ['link', 'del', ifname]);
  }
  await quiet('nft', ['delete', 'table', 'inet', TEST_NET.tableName]);
  await quiet('nft', ['delete', 'table', 'bridge', TEST_NET.tableName]);
  for (const rule of [
    ['-i', TEST_NET.bridgeName],
    ['-o', TEST_NET.bridgeName],
  ]) {
    for (const verdict of ['ACCEPT', 'DROP']) {
      while ((await runCommand('iptables', ['-D', 'FORWARD', ...rule, '-j', verdict]).catch(() => ({ exitCode: 1 }))).exitCode === 0);
    }
  }
}

export async function makeStateDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'paddock-network-test-'));
}

export async function removeDir(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

export async function hostPrimaryAddress(): Promise<string | null> {
  const routes = JSON.parse((await runCommand('ip', ['-j', 'route', 'get', '198.51.100.1'])).stdout || '[]') as Array<{ prefsrc?: string }>;
  return routes[0]?.prefsrc ?? null;
}
