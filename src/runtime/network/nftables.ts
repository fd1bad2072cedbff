// Paddock's nftables tables. Everything lives in two tables of our own (`inet` for routing, NAT and
// egress policy; `bridge` for anti-spoofing and port-to-port drops) and every rule is scoped to the
// sandbox bridge, so the host's other traffic and other tables are never touched.
import { run } from './command.js';
import type { NetworkConfig } from './options.js';
import type { NetworkMode } from '../runtime.js';
import type { SandboxNames } from './names.js';
import { sandboxMac } from './mac.js';

export async function applyRuleset(ruleset: string): Promise<void> {
  await run('nft', ['-f', '-'], { input: ruleset });
}

function elements(values: string[]): string {
  return `{ ${values.join(', ')} }`;
}

/** Creates or refreshes the tables, base chains and shared sets; per-sandbox objects are kept. */
export function baseRuleset(config: NetworkConfig): string {
  const inet = `inet ${config.tableName}`;
  const bridge = `bridge ${config.tableName}`;
  const br = `"${config.bridgeName}"`;
  const ports = `"${config.interfacePrefix}*"`;
  const exposed = (protocol: 'tcp' | 'udp') => config.exposedHostPorts.filter((entry) => entry.protocol === protocol).map((entry) => String(entry.port));
  const lines = [
    `add table ${inet}`,
    `add set ${inet} denied { type ipv4_addr; flags interval; auto-merge; }`,
    `add set ${inet} dns_servers { type ipv4_addr; }`,
    `add set ${inet} exposed_tcp { type inet_service; }`,
    `add set ${inet} exposed_udp { type inet_service; }`,
    // Source address → verdict: `accept` for full mode, `jump sbx_<hash>` for an allowlist.
    `add map ${inet} egress { type ipv4_addr : verdict; }`,
    `add chain ${inet} sandbox_forward { type filter hook forward priority filter; policy accept; }`,
    `add chain ${inet} sandbox_input { type filter hook input priority filter; policy accept; }`,
    `add chain ${inet} sandbox_nat { type nat hook postrouting priority srcnat; policy accept; }`,
    `add chain ${inet} sandbox_egress`,
    `flush chain ${inet} sandbox_forward`,
    `flush chain ${inet} sandbox_input`,
    `flush chain ${inet} sandbox_nat`,
    `flush chain ${inet} sandbox_egress`,
    `flush set ${inet} denied`,
    `flush set ${inet} dns_servers`,
    `flush set ${inet} exposed_tcp`,
    `flush set ${inet} exposed_udp`,
  ];
  if (config.deniedEgress.length > 0) lines.push(`add element ${inet} denied ${elements(config.deniedEgress)}`);
  if (config.dnsServers.length > 0) lines.push(`add element ${inet} dns_servers ${elements(config.dnsServers)}`);
  if (exposed('tcp').length > 0) lines.push(`add element ${inet} exposed_tcp ${elements(exposed('tcp'))}`);
  if (exposed('udp').length > 0) lines.push(`add element ${inet} exposed_udp ${elements(exposed('udp'))}`);
  lines.push(
    // Sandbox to sandbox through the host's routing (bridge port isolation stops it at layer 2).
    `add rule ${inet} sandbox_forward iifname ${br} oifname ${br} drop`,
    `add rule ${inet} sandbox_forward oifname ${br} ct state established,related accept`,
    `add rule ${inet} sandbox_forward oifname ${br} drop`,
    `add rule ${inet} sandbox_forward iifname ${br} jump sandbox_egress`,
    `add rule ${inet} sandbox_egress meta nfproto ipv6 drop`,
    `add rule ${inet} sandbox_egress ct state established,related accept`,
    `add rule ${inet} sandbox_egress ip daddr @dns_servers udp dport 53 accept`,
    `add rule ${inet} sandbox_egress ip daddr @dns_servers tcp dport 53 accept`,
    `add rule ${inet} sandbox_egress ip daddr @denied drop`,
    `add rule ${inet} sandbox_egress ip saddr vmap @egress`,
    `add rule ${inet} sandbox_egress drop`,
    // Host-initiated connections (preview proxy, port probes) get their replies; nothing else from a sandbox.
    `add rule ${inet} sandbox_input iifname ${br} ct state established,related accept`,
    `add rule ${inet} sandbox_input iifname ${br} ip daddr ${config.gateway} tcp dport @exposed_tcp accept`,
    `add rule ${inet} sandbox_input iifname ${br} ip daddr ${config.gateway} udp dport @exposed_udp accept`,
    `add rule ${inet} sandbox_input iifname ${br} drop`,
    `add rule ${inet} sandbox_nat ip saddr ${config.subnetText} oifname != ${br} masquerade`,
    `add table ${bridge}`,
    `add set ${bridge} ports { type ifname . ipv4_addr; }`,
    `add set ${bridge} port_macs { type ifname . ether_addr; }`,
    `add chain ${bridge} sandbox_ports { type filter hook prerouting priority filter; policy accept; }`,
    `add chain ${bridge} sandbox_bridging { type filter hook forward priority filter; policy accept; }`,
    `flush chain ${bridge} sandbox_ports`,
    `flush chain ${bridge} sandbox_bridging`,
    // A sandbox may only send from its own MAC (also as the ARP sender), so it can neither pose as
    // another sandbox towards the bridge nor point the host's neighbour entries at one.
    `add rule ${bridge} sandbox_ports iifname ${ports} iifname . ether saddr != @port_macs drop`,
    `add rule ${bridge} sandbox_ports iifname ${ports} ether type arp iifname . arp saddr ether != @port_macs drop`,
    // A sandbox may only speak IPv4/ARP from its own address (no spoofing another sandbox, no IPv6).
    `add rule ${bridge} sandbox_ports iifname ${ports} ether type arp iifname . arp saddr ip @ports accept`,
    `add rule ${bridge} sandbox_ports iifname ${ports} ether type ip iifname . ip saddr @ports accept`,
    `add rule ${bridge} sandbox_ports iifname ${ports} drop`,
    `add rule ${bridge} sandbox_bridging iifname ${ports} oifname ${ports} drop`,
  );
  return lines.join('\n') + '\n';
}

export interface SandboxRules {
  names: SandboxNames;
  ip: string;
  mode: 'full' | 'allowlist';
  /** Allowlist mode: IPv4 addresses and CIDRs the sandbox may reach. */
  allowed: string[];
}

export function sandboxRuleset(config: NetworkConfig, rules: SandboxRules): string {
  const inet = `inet ${config.tableName}`;
  const { names, ip } = rules;
  const lines = [`add element bridge ${config.tableName} ports { "${names.hostVeth}" . ${ip} }`, portMacLine('add', config, names.hostVeth, sandboxMac(ip))];
  if (rules.mode === 'full') {
    lines.push(`add element ${inet} egress { ${ip} : accept }`);
  } else {
    lines.push(
      `add set ${inet} ${names.allowSet} { type ipv4_addr; flags interval; auto-merge; }`,
      `add chain ${inet} ${names.allowChain}`,
      `add rule ${inet} ${names.allowChain} ip daddr @${names.allowSet} accept`,
      ...allowSetLines(config, names.allowSet, rules.allowed),
      `add element ${inet} egress { ${ip} : jump ${names.allowChain} }`,
    );
  }
  return lines.join('\n') + '\n';
}

export function portMacLine(verb: 'add' | 'delete', config: NetworkConfig, hostVeth: string, mac: string): string {
  return `${verb} element bridge ${config.tableName} port_macs { "${hostVeth}" . ${mac} }`;
}

function allowSetLines(config: NetworkConfig, set: string, allowed: string[]): string[] {
  const lines = [`flush set inet ${config.tableName} ${set}`];
  if (allowed.length > 0) lines.push(`add element inet ${config.tableName} ${set} ${elements(allowed)}`);
  return lines;
}

/** Replaces an allowlist set's content in one transaction, so there is no moment with an empty set. */
export function allowSetRuleset(config: NetworkConfig, set: string, allowed: string[]): string {
  return allowSetLines(config, set, allowed).join('\n') + '\n';
}

export interface TableState {
  chains: string[];
  sets: string[];
  /** Sandbox source addresses present in the egress map. */
  egressAddresses: string[];
  ports: Array<{ ifname: string; ip: string }>;
  portMacs: Array<{ ifname: string; mac: string }>;
}

interface NftJson {
  nftables: Array<Record<string, { name?: string; elem?: unknown[] }>>;
}

async function listTable(family: 'inet' | 'bridge', table: string): Promise<NftJson['nftables']> {
  try {
    return (JSON.parse(await run('nft', ['-j', 'list', 'table', family, table])) as NftJson).nftables;
  } catch {
    return [];
  }
}

export async function readTableState(config: NetworkConfig): Promise<TableState> {
  const [inet, bridge] = await Promise.all([listTable('inet', config.tableName), listTable('bridge', config.tableName)]);
  const state: TableState = { chains: [], sets: [], egressAddresses: [], ports: [], portMacs: [] };
  for (const object of inet) {
    if (object.chain?.name) state.chains.push(object.chain.name);
    if (object.set?.name) state.sets.push(object.set.name);
    if (object.map?.name === 'egress') {
      for (const element of object.map.elem ?? []) state.egressAddresses.push(String((element as unknown[])[0]));
    }
  }
  for (const object of bridge) {
    for (const element of object.set?.elem ?? []) {
      const [ifname, address] = (element as { concat: string[] }).concat;
      if (object.set?.name === 'ports') state.ports.push({ ifname, ip: address });
      if (object.set?.name === 'port_macs') state.portMacs.push({ ifname, mac: address });
    }
  }
  return state;
}

export interface Removal {
  hashes: string[];
  addresses: string[];
}

/** Exactly what `sandboxRuleset` added for this lease; fails as a whole (changing nothing) if any of it is missing. */
export function leaseRemovalRuleset(config: NetworkConfig, names: SandboxNames, lease: { ip: string; mode: NetworkMode }): string {
  const inet = `inet ${config.tableName}`;
  const lines = [
    `delete element bridge ${config.tableName} ports { "${names.hostVeth}" . ${lease.ip} }`,
    portMacLine('delete', config, names.hostVeth, sandboxMac(lease.ip)),
    `delete element ${inet} egress { ${lease.ip} }`,
  ];
  if (lease.mode === 'allowlist') lines.push(`flush chain ${inet} ${names.allowChain}`, `delete chain ${inet} ${names.allowChain}`, `delete set ${inet} ${names.allowSet}`);
  return lines.join('\n') + '\n';
}

/** Deletes the per-sandbox objects that exist in `state` for the given hashes and addresses. */
export function removalRuleset(config: NetworkConfig, state: TableState, removal: Removal): string {
  const inet = `inet ${config.tableName}`;
  const lines: string[] = [];
  for (const address of removal.addresses) {
    if (state.egressAddresses.includes(address)) lines.push(`delete element ${inet} egress { ${address} }`);
  }
  for (const port of state.ports) {
    const hash = port.ifname.slice(config.interfacePrefix.length);
    if (removal.addresses.includes(port.ip) || removal.hashes.includes(hash)) {
      lines.push(`delete element bridge ${config.tableName} ports { "${port.ifname}" . ${port.ip} }`);
    }
  }
  for (const port of state.portMacs) {
    if (removal.hashes.includes(port.ifname.slice(config.interfacePrefix.length))) lines.push(portMacLine('delete', config, port.ifname, port.mac));
  }
  for (const hash of removal.hashes) {
    if (state.chains.includes(`sbx_${hash}`)) lines.push(`flush chain ${inet} sbx_${hash}`, `delete chain ${inet} sbx_${hash}`);
    if (state.sets.includes(`allow_${hash}`)) lines.push(`delete set ${inet} allow_${hash}`);
  }
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}
