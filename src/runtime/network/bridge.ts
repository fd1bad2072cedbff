// Host-side preparation: the sandbox bridge with the gateway address, forwarding, and the MTU to use.
import { run, runCommand } from './command.js';
import type { NetworkConfig } from './options.js';
import { writeSysctl } from './sysctl.js';

export async function ensureBridge(config: NetworkConfig, mtu: number): Promise<void> {
  const exists = (await runCommand('ip', ['link', 'show', 'dev', config.bridgeName])).exitCode === 0;
  if (!exists) {
    const created = await runCommand('ip', ['link', 'add', config.bridgeName, 'mtu', String(mtu), 'type', 'bridge']);
    // Two Paddock processes starting at once: the other one created it first.
    if (created.exitCode !== 0 && !/exists/.test(created.stderr)) throw new Error(`ip link add ${config.bridgeName}: ${created.stderr.trim()}`);
  }
  // No IPv6 on the bridge, so the host offers sandboxes no IPv6 address to reach.
  await writeSysctl(`/proc/sys/net/ipv6/conf/${config.bridgeName}/disable_ipv6`, '1', true);
  // 127.0.0.0/8 must stay unroutable from the bridge (route_localnet would expose host loopback services).
  await writeSysctl(`/proc/sys/net/ipv4/conf/${config.bridgeName}/route_localnet`, '0');
  await run('ip', ['addr', 'replace', `${config.gateway}/${config.prefixLength}`, 'dev', config.bridgeName]);
  await run('ip', ['link', 'set', config.bridgeName, 'up']);
  await writeSysctl('/proc/sys/net/ipv4/ip_forward', '1');
}

/** The MTU of the interface carrying the default route, so sandbox packets fit the real path. */
export async function defaultRouteMtu(): Promise<number> {
  const routes = JSON.parse((await run('ip', ['-j', 'route', 'show', 'default']).catch(() => '[]')) || '[]') as Array<{ dev?: string }>;
  const dev = routes[0]?.dev;
  if (!dev) return 1500;
  const links = JSON.parse(await run('ip', ['-j', 'link', 'show', 'dev', dev])) as Array<{ mtu?: number }>;
  return links[0]?.mtu ?? 1500;
}
