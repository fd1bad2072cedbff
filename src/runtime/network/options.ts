// NetworkOptions: what an operator can tune, and the validated, defaulted form the rest of the layer uses.
import { readFile } from 'node:fs/promises';
import { type Cidr, broadcastOf, formatCidr, formatIpv4, parseCidr, parseIpv4 } from './ipv4.js';

export interface ExposedHostPort {
  protocol: 'tcp' | 'udp';
  port: number;
}

export interface NetworkOptions {
  /** Directory for IP leases (under the data dir) so a restart keeps every sandbox's address. */
  stateDir: string;
  /** Host bridge all sandbox veths plug into. Default `paddock0`. */
  bridgeName?: string;
  /** Sandbox subnet; the first address is the bridge (gateway). Default `10.247.0.0/16`. */
  subnet?: string;
  /** Name of Paddock's own nftables tables (one `inet`, one `bridge`). Default `paddock`. */
  tableName?: string;
  /** Prefix of host-side veth names, at most 5 characters of [a-z0-9]. Default `pdk`. */
  interfacePrefix?: string;
  /** Prefix of network namespace names under /run/netns. Default `paddock-`. */
  netnsPrefix?: string;
  /**
   * Resolvers sandboxes use and the host uses to resolve allowlisted names. Must be off-host addresses:
   * a sandbox cannot reach anything on the host. Default: the non-loopback IPv4 nameservers of
   * /etc/resolv.conf (or systemd-resolved's upstream list).
   */
  dnsServers?: string[];
  /** How often allowlisted hostnames are resolved again. Default 30 s. */
  dnsRefreshIntervalMs?: number;
  /** An address a name stopped returning stays allowed this long (or its TTL, if longer). Default 5 min. */
  dnsGraceMs?: number;
  /**
   * Destinations no sandbox may reach in any mode, even when allowlisted. Default: private, shared,
   * loopback, link-local (metadata), multicast and reserved IPv4 ranges. Replaces the default when set.
   */
  deniedEgress?: string[];
  /** Ports on the bridge address that sandboxes may reach deliberately. Default none. */
  exposedHostPorts?: ExposedHostPort[];
  /** MTU of sandbox veths. Default: the MTU of the host's default-route interface, else 1500. */
  mtu?: number;
  warn?: (message: string) => void;
}

export const DEFAULT_DENIED_EGRESS = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

/** Always denied, whatever `deniedEgress` says: these are never "the outside world". */
const ALWAYS_DENIED = ['0.0.0.0/8', '127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '240.0.0.0/4'];

export interface NetworkConfig {
  stateDir: string;
  bridgeName: string;
  subnet: Cidr;
  subnetText: string;
  gateway: string;
  prefixLength: number;
  firstHost: number;
  lastHost: number;
  tableName: string;
  interfacePrefix: string;
  netnsPrefix: string;
  dnsServers: string[];
  dnsRefreshIntervalMs: number;
  dnsGraceMs: number;
  deniedEgress: string[];
  exposedHostPorts: ExposedHostPort[];
  mtu: number | null;
  warn: (message: string) => void;
}

const NAME = /^[a-zA-Z][a-zA-Z0-9_-]*$/;

/** The options that name this server's network on the host: distinct per server when several share one. */
export type NetworkNameOption = 'bridgeName' | 'subnet' | 'tableName' | 'interfacePrefix' | 'netnsPrefix';

/** Why `value` cannot be the `option`, or null when it can. */
export function networkNameProblem(option: NetworkNameOption, value: string): string | null {
  switch (option) {
    case 'bridgeName':
      return NAME.test(value) && value.length <= 15 ? null : 'must be a valid interface name (≤ 15 characters)';
    case 'subnet': {
      const subnet = parseCidr(value);
      return subnet && subnet.prefixLength <= 29 && subnet.prefixLength >= 8 ? null : 'must be an IPv4 CIDR between /8 and /29';
    }
    case 'tableName':
      return NAME.test(value) ? null : 'must be letters, digits, _ or -';
    case 'interfacePrefix':
      return /^[a-z][a-z0-9]{0,4}$/.test(value) ? null : 'must be 1–5 of [a-z0-9]';
    case 'netnsPrefix':
      return /^[a-z][a-z0-9_-]{0,31}$/.test(value) ? null : 'must be [a-z0-9_-]';
  }
}

function invalid(field: string, why: string): Error {
  return new Error(`network option ${field}: ${why}`);
}

function checked(option: NetworkNameOption, value: string): string {
  const problem = networkNameProblem(option, value);
  if (problem) throw invalid(option, problem);
  return value;
}

export async function resolveNetworkOptions(options: NetworkOptions): Promise<NetworkConfig> {
  const bridgeName = checked('bridgeName', options.bridgeName ?? 'paddock0');
  const subnet = parseCidr(checked('subnet', options.subnet ?? '10.247.0.0/16'))!;
  const tableName = checked('tableName', options.tableName ?? 'paddock');
  const interfacePrefix = checked('interfacePrefix', options.interfacePrefix ?? 'pdk');
  const netnsPrefix = checked('netnsPrefix', options.netnsPrefix ?? 'paddock-');
  const dnsServers = options.dnsServers ?? (await hostDnsServers());
  for (const server of dnsServers) {
    if (parseIpv4(server) === null) throw invalid('dnsServers', `${server} is not an IPv4 address`);
  }
  const deniedEgress = [...new Set([...ALWAYS_DENIED, ...(options.deniedEgress ?? DEFAULT_DENIED_EGRESS)])].map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw invalid('deniedEgress', `${text} is not an IPv4 CIDR`);
    return formatCidr(cidr);
  });
  for (const exposed of options.exposedHostPorts ?? []) {
    if (!Number.isInteger(exposed.port) || exposed.port < 1 || exposed.port > 65535) throw invalid('exposedHostPorts', `bad port ${exposed.port}`);
  }
  return {
    stateDir: options.stateDir,
    bridgeName,
    subnet,
    subnetText: formatCidr(subnet),
    gateway: formatIpv4(subnet.network + 1),
    prefixLength: subnet.prefixLength,
    firstHost: subnet.network + 2,
    lastHost: broadcastOf(subnet) - 1,
    tableName,
    interfacePrefix,
    netnsPrefix,
    dnsServers,
    dnsRefreshIntervalMs: options.dnsRefreshIntervalMs ?? 30_000,
    dnsGraceMs: options.dnsGraceMs ?? 300_000,
    deniedEgress,
    exposedHostPorts: options.exposedHostPorts ?? [],
    mtu: options.mtu ?? null,
    warn: options.warn ?? ((message) => process.emitWarning(message)),
  };
}

async function nameserversIn(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .map((line) => /^\s*nameserver\s+(\S+)/.exec(line)?.[1])
    .filter((server): server is string => server !== undefined && parseIpv4(server) !== null && !server.startsWith('127.'));
}

/** The host's upstream IPv4 resolvers, skipping loopback resolvers (127.0.0.53 and the like) a sandbox could never reach. */
export async function hostDnsServers(): Promise<string[]> {
  const servers = await nameserversIn('/etc/resolv.conf');
  return servers.length > 0 ? servers : nameserversIn('/run/systemd/resolve/resolv.conf');
}
