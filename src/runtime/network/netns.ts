// A sandbox's network namespace and its veth into the bridge.
import { access } from 'node:fs/promises';
import { run, runCommand, type CommandResult } from './command.js';
import type { NetworkConfig } from './options.js';
import type { SandboxNames } from './names.js';
import { sandboxMac } from './mac.js';
import { writeSysctl } from './sysctl.js';

export async function pathExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Runs a command inside a network namespace only (mounts and /sys stay the host's, which runsc needs). */
export function netnsExec(netnsPath: string, command: string, args: string[] = [], options: { input?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  return runCommand('nsenter', [`--net=${netnsPath}`, '--', command, ...args], options);
}

/** A namespace with only loopback up, as `none` mode leaves it: no path anywhere, so IPv6 can stay. */
export async function createIsolatedNamespace(names: SandboxNames): Promise<void> {
  if (!(await pathExists(names.netnsPath))) await run('ip', ['netns', 'add', names.netns]);
  await run('ip', ['-n', names.netns, 'link', 'set', 'lo', 'up']);
}

/**
 * A namespace plugged into the bridge: `eth0` inside with the sandbox address, an isolated port outside.
 * IPv6 is disabled on both ends (so link-local IPv6 cannot become a way around the IPv4 rules) before
 * either is up. The port neither learns addresses nor receives unknown unicast: the bridge reaches the
 * sandbox's one MAC by a static entry, so a sandbox sending frames with another sandbox's MAC (root has
 * CAP_NET_RAW on runc) cannot draw that sandbox's traffic to its own port, nor fill the host's forwarding
 * table. Four processes: the steps share batches, as a process spawn is most of each step's cost.
 */
export async function createConnectedNamespace(config: NetworkConfig, names: SandboxNames, ip: string, mtu: number): Promise<void> {
  const create = (await pathExists(names.netnsPath)) ? [] : [`netns add ${names.netns}`];
  await ipBatch([...create, `link add ${names.hostVeth} mtu ${mtu} type veth peer name eth0 mtu ${mtu} address ${sandboxMac(ip)} netns ${names.netns}`]);
  await writeSysctl(`/proc/sys/net/ipv6/conf/${names.hostVeth}/disable_ipv6`, '1', true);
  const inside = ['link set lo up', `addr add ${ip}/${config.prefixLength} dev eth0`, 'link set eth0 up', `route add default via ${config.gateway} dev eth0`];
  await Promise.all([
    ipBatch([
      `link set ${names.hostVeth} master ${config.bridgeName}`,
      // Port isolation: frames from one sandbox port are never delivered to another.
      `link set ${names.hostVeth} type bridge_slave isolated on learning off flood off`,
      `link set ${names.hostVeth} up`,
    ]).then(() => pinPortMac(names.hostVeth, sandboxMac(ip))),
    // Inside the namespace, /proc/sys/net is the namespace's own; `all` also covers the eth0 already there.
    run('nsenter', [`--net=${names.netnsPath}`, '--', 'sh', '-c', 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 && echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6 && exec ip -batch -'], {
      input: inside.join('\n') + '\n',
    }),
  ]);
}

/** The bridge's static forwarding entry for the one MAC behind a sandbox port. */
export async function pinPortMac(hostVeth: string, mac: string): Promise<void> {
  await run('bridge', ['fdb', 'replace', mac, 'dev', hostVeth, 'master', 'static']);
}

/** The MAC of a live sandbox's eth0 (one attached before MACs were derived from addresses has a random one). */
export async function sandboxEth0Mac(netnsPath: string): Promise<string | null> {
  const result = await netnsExec(netnsPath, 'ip', ['-j', 'link', 'show', 'dev', 'eth0']);
  if (result.exitCode !== 0) return null;
  return (JSON.parse(result.stdout) as Array<{ address?: string }>)[0]?.address ?? null;
}

/** Puts a port attached by an older version under the same rules as a new one: no learning, no flooding. */
export async function hardenPort(hostVeth: string, mac: string): Promise<void> {
  await run('ip', ['link', 'set', hostVeth, 'type', 'bridge_slave', 'learning', 'off', 'flood', 'off']);
  await pinPortMac(hostVeth, mac);
}

function ipBatch(lines: string[], netns?: string): Promise<string> {
  return run('ip', [...(netns ? ['-n', netns] : []), '-batch', '-'], { input: lines.join('\n') + '\n' });
}

/** Deletes the host end of the veth (which takes the peer with it) and the namespace; each may be gone already. */
export async function deleteConnection(names: SandboxNames): Promise<void> {
  const lines = [`link del ${names.hostVeth}`];
  if (await pathExists(names.netnsPath)) lines.push(`netns del ${names.netns}`);
  const result = await runCommand('ip', ['-force', '-batch', '-'], { input: lines.join('\n') + '\n' });
  const unexpected = result.stderr.split('\n').filter((line) => line.trim() && !/Cannot find device|does not exist|Command failed/.test(line));
  if (result.exitCode !== 0 && unexpected.length > 0) throw new Error(`removing the network of ${names.netns}: ${unexpected.join('; ')}`);
}

export async function deleteLink(name: string): Promise<void> {
  const result = await runCommand('ip', ['link', 'del', name]);
  if (result.exitCode !== 0 && !/Cannot find device|does not exist/.test(result.stderr)) {
    throw new Error(`ip link del ${name}: ${result.stderr.trim()}`);
  }
}

export async function listNamespaces(prefix: string): Promise<string[]> {
  const output = await run('ip', ['-j', 'netns', 'list']).catch(() => '');
  if (output.trim() === '') return [];
  return (JSON.parse(output) as Array<{ name: string }>).map((entry) => entry.name).filter((name) => name.startsWith(prefix));
}

export async function listLinks(prefix: string): Promise<string[]> {
  const output = await run('ip', ['-j', 'link', 'show']);
  return (JSON.parse(output) as Array<{ ifname: string }>).map((entry) => entry.ifname).filter((name) => name.startsWith(prefix));
}
