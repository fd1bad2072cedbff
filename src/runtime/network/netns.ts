// A sandbox's network namespace and its veth into the bridge.
import { access } from 'node:fs/promises';
import { run, runCommand, type CommandResult } from './command.js';
import type { NetworkConfig } from './options.js';
import type { SandboxNames } from './names.js';
import { writeSysctl } from './sysctl.js';

export async function pathExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Runs a command inside a network namespace only (mounts and /sys stay the host's, which runsc needs). */
export function netnsExec(
  netnsPath: string,
  command: string,
  args: string[] = [],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return runCommand('nsenter', [`--net=${netnsPath}`, '--', command, ...args], options);
}

/** Creates the namespace with only loopback up and IPv6 disabled, as `none` mode leaves it. */
/**
 * Creates the namespace with loopback up. IPv6 is disabled when the namespace will get an interface to
 * the bridge (so link-local IPv6 cannot become a way around the IPv4 rules); a namespace with only
 * loopback (`none`) has no path anywhere, so it skips that step and starts faster.
 */
export async function createNamespace(names: SandboxNames, options: { disableIpv6: boolean }): Promise<void> {
  if (!(await pathExists(names.netnsPath))) await run('ip', ['netns', 'add', names.netns]);
  const steps = [run('ip', ['-n', names.netns, 'link', 'set', 'lo', 'up'])];
  if (options.disableIpv6) {
    steps.push(
      run('nsenter', [`--net=${names.netnsPath}`, '--', 'sysctl', '-q', '-w', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1']),
    );
  }
  await Promise.all(steps);
}

/** Plugs the namespace into the bridge: `eth0` inside with the sandbox address, an isolated port outside. */
export async function connectNamespace(config: NetworkConfig, names: SandboxNames, ip: string, mtu: number): Promise<void> {
  const mtuArgs = ['mtu', String(mtu)];
  // Created directly inside the namespace, so the peer gets the namespace's IPv6-disabled defaults.
  await run('ip', ['link', 'add', names.hostVeth, ...mtuArgs, 'type', 'veth', 'peer', 'name', 'eth0', ...mtuArgs, 'netns', names.netns]);
  await writeSysctl(`/proc/sys/net/ipv6/conf/${names.hostVeth}/disable_ipv6`, '1', true);
  await run('ip', ['link', 'set', names.hostVeth, 'master', config.bridgeName]);
  // Port isolation: frames from one sandbox port are never delivered to another.
  await run('ip', ['link', 'set', names.hostVeth, 'type', 'bridge_slave', 'isolated', 'on']);
  await run('ip', ['link', 'set', names.hostVeth, 'up']);
  await run('ip', ['-n', names.netns, '-batch', '-'], {
    input: [
      `addr add ${ip}/${config.prefixLength} dev eth0`,
      'link set eth0 up',
      `route add default via ${config.gateway} dev eth0`,
    ].join('\n') + '\n',
  });
}

export async function deleteLink(name: string): Promise<void> {
  const result = await runCommand('ip', ['link', 'del', name]);
  if (result.exitCode !== 0 && !/Cannot find device|does not exist/.test(result.stderr)) {
    throw new Error(`ip link del ${name}: ${result.stderr.trim()}`);
  }
}

export async function deleteNamespace(names: SandboxNames): Promise<void> {
  if (await pathExists(names.netnsPath)) await run('ip', ['netns', 'del', names.netns]);
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
