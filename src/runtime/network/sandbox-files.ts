// What the driver writes into a sandbox's /etc/resolv.conf and /etc/hosts for its network mode.
import type { NetworkMode } from '../runtime.js';
import { hostDnsServers } from './options.js';

/**
 * `full` and `allowlist` sandboxes query the configured resolvers directly (the only port-53 traffic
 * their rules let through); `none` gets no nameserver, so lookups fail at once instead of timing out.
 */
export function sandboxResolvConf(mode: NetworkMode, dnsServers: string[]): string {
  if (mode === 'none' || dnsServers.length === 0) return '# no network: names resolve only through /etc/hosts\n';
  return [...dnsServers.map((server) => `nameserver ${server}`), 'options timeout:2 attempts:2', ''].join('\n');
}

/** The sandbox's hostname is its id (spec), mapped to its own address or to loopback. */
export function sandboxHostsFile(id: string, ip: string | null): string {
  return ['127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback', `${ip ?? '127.0.1.1'}\t${id}`, ''].join('\n');
}

/** Both files for one sandbox, using the same resolvers the network layer allows (see NetworkOptions.dnsServers). */
export async function sandboxNameFiles(options: { dnsServers?: string[] }, sandbox: { id: string; mode: NetworkMode; ip: string | null }): Promise<{ resolvConf: string; hosts: string }> {
  const dnsServers = options.dnsServers ?? (await hostDnsServers());
  return { resolvConf: sandboxResolvConf(sandbox.mode, dnsServers), hosts: sandboxHostsFile(sandbox.id, sandbox.ip) };
}
