// The sandbox network layer: one bridge, a namespace + veth per sandbox, and nftables rules that enforce
// the sandbox's mode. Drivers call it through `SandboxNetwork`; nothing else touches the host network.
import type { NetworkMode } from '../runtime.js';
import { parseAllowlist } from './allowlist.js';
import { defaultRouteMtu, ensureBridge } from './bridge.js';
import { run } from './command.js';
import { DnsRefresher } from './dns-refresher.js';
import { ensureIptablesForwarding } from './host-firewall.js';
import { IpAllocator } from './ip-allocator.js';
import { hashInName, idHash, sandboxNames, type SandboxNames } from './names.js';
import { createConnectedNamespace, createIsolatedNamespace, deleteConnection, deleteLink, hardenPort, listLinks, listNamespaces, pathExists, sandboxEth0Mac } from './netns.js';
import { allowSetRuleset, applyRuleset, baseRuleset, leaseRemovalRuleset, portMacLine, readTableState, removalRuleset, sandboxRuleset } from './nftables.js';
import { type NetworkConfig, type NetworkOptions, resolveNetworkOptions } from './options.js';

export interface SandboxNetwork {
  /** Host bridge, nftables base tables/chains, ip_forward. Idempotent, safe to call at every start. */
  init(): Promise<void>;
  /** Creates /run/netns/<name>, a veth into the bridge (nothing but lo for `none`) and the mode's rules. */
  attach(id: string, mode: NetworkMode, allowlist: string[]): Promise<{ netnsPath: string; ip: string | null }>;
  /** Removes everything of that sandbox. Idempotent. */
  detach(id: string): Promise<void>;
  /** Removes leftovers (netns, veths, rules, leases) of ids not in the list; returns the removed ids. */
  reconcile(liveIds: string[]): Promise<string[]>;
  /** Stops background timers (allowlist DNS refresh). */
  close(): Promise<void>;
  /** The host's address on the sandbox bridge, where exposedHostPorts are reachable; null before init. */
  gatewayAddress?(): string | null;
}

interface Ready {
  config: NetworkConfig;
  mtu: number;
  allocator: IpAllocator;
  refresher: DnsRefresher;
}

class LinuxSandboxNetwork implements SandboxNetwork {
  private state: Ready | null = null;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly options: NetworkOptions) {}

  gatewayAddress(): string | null {
    return this.state?.config.gateway ?? null;
  }

  async init(): Promise<void> {
    const config = await resolveNetworkOptions(this.options);
    if (config.dnsServers.length === 0) {
      config.warn('no off-host DNS resolver found: sandboxes will not resolve names (set dnsServers)');
    }
    const mtu = config.mtu ?? (await defaultRouteMtu());
    await ensureBridge(config, mtu);
    await applyRuleset(baseRuleset(config));
    await ensureIptablesForwarding(config.bridgeName);
    await this.ensureNetnsMount(config);
    const allocator = new IpAllocator(config.stateDir, config.firstHost, config.lastHost, config.subnetText);
    await allocator.load();
    this.state?.refresher.stop();
    const refresher = new DnsRefresher(config.dnsServers, config.dnsRefreshIntervalMs, config.dnsGraceMs, (id, allowed) => this.applyAllowed(id, allowed), config.warn);
    refresher.start();
    this.state = { config, mtu, allocator, refresher };
  }

  async attach(id: string, mode: NetworkMode, allowlist: string[]): Promise<{ netnsPath: string; ip: string | null }> {
    const { config, allocator, refresher, mtu } = this.ready();
    const names = sandboxNames(config, id);
    const parsed = mode === 'allowlist' ? parseAllowlist(allowlist) : { cidrs: [], hostnames: [] };
    return this.withLock(id, async () => {
      // A retried or repeated attach starts from a clean slate (keeping the address).
      if (allocator.get(id) || (await pathExists(names.netnsPath))) await this.removeTraces(id, names, mode === 'none');
      try {
        if (mode === 'none') {
          await createIsolatedNamespace(names);
          return { netnsPath: names.netnsPath, ip: null };
        }
        const lease = await allocator.allocate(id, mode, allowlist);
        await createConnectedNamespace(config, names, lease.ip, mtu);
        const allowed = mode === 'allowlist' ? await refresher.register({ id, ...parsed }) : [];
        await applyRuleset(sandboxRuleset(config, { names, ip: lease.ip, mode, allowed }));
        return { netnsPath: names.netnsPath, ip: lease.ip };
      } catch (error) {
        await this.removeTraces(id, names, true).catch(() => undefined);
        throw error;
      }
    });
  }

  async detach(id: string): Promise<void> {
    const { config } = this.ready();
    const names = sandboxNames(config, id);
    return this.withLock(id, () => this.removeTraces(id, names, true));
  }

  async reconcile(liveIds: string[]): Promise<string[]> {
    const { config, allocator } = this.ready();
    const live = new Set(liveIds);
    const leftovers = new Set(
      allocator
        .all()
        .map((lease) => lease.id)
        .filter((id) => !live.has(id)),
    );
    for (const netns of await listNamespaces(config.netnsPrefix)) {
      const id = netns.slice(config.netnsPrefix.length);
      if (!live.has(id) && /^[a-z0-9][a-z0-9_-]{0,62}$/.test(id)) leftovers.add(id);
    }
    for (const id of leftovers) await this.detach(id);
    await this.sweepOrphans(liveIds);
    await this.pinLivePorts(liveIds);
    await this.resumeRefreshes(liveIds);
    return [...leftovers].sort();
  }

  async close(): Promise<void> {
    this.state?.refresher.stop();
  }

  private ready(): Ready {
    if (!this.state) throw new Error('SandboxNetwork.init() must be called first');
    return this.state;
  }

  /** Removes what exists of a sandbox's network; `releaseLease` false keeps its address for a re-attach. */
  private async removeTraces(id: string, names: SandboxNames, releaseLease: boolean): Promise<void> {
    const { config, allocator, refresher } = this.ready();
    refresher.unregister(id);
    const lease = allocator.get(id);
    // What attach added for this lease, removed without reading the tables first; when that fails (an
    // attach cut short left part of it), what the tables hold of this sandbox.
    const removed = lease
      ? await applyRuleset(leaseRemovalRuleset(config, names, lease)).then(
          () => true,
          () => false,
        )
      : false;
    if (!removed) {
      const removal = removalRuleset(config, await readTableState(config), { hashes: [names.hash], addresses: lease ? [lease.ip] : [] });
      if (removal) await applyRuleset(removal);
    }
    await deleteConnection(names);
    if (releaseLease) await allocator.release(id);
  }

  /** Objects no lease or namespace names (a crash between two steps of attach or detach). */
  private async sweepOrphans(liveIds: string[]): Promise<void> {
    const { config, allocator } = this.ready();
    const liveHashes = new Set(liveIds.map(idHash));
    const liveAddresses = new Set(liveIds.map((id) => allocator.get(id)?.ip).filter((ip): ip is string => ip !== undefined));
    for (const link of await listLinks(config.interfacePrefix)) {
      const hash = hashInName(link, config.interfacePrefix);
      if (hash && !liveHashes.has(hash)) await deleteLink(link);
    }
    const state = await readTableState(config);
    const hashes = new Set<string>();
    for (const name of [...state.chains, ...state.sets]) {
      const hash = hashInName(name, 'sbx_') ?? hashInName(name, 'allow_');
      if (hash && !liveHashes.has(hash)) hashes.add(hash);
    }
    for (const port of [...state.ports, ...state.portMacs]) {
      const hash = hashInName(port.ifname, config.interfacePrefix);
      if (hash && !liveHashes.has(hash)) hashes.add(hash);
    }
    const addresses = state.egressAddresses.filter((address) => !liveAddresses.has(address));
    const removal = removalRuleset(config, state, { hashes: [...hashes], addresses });
    if (removal) await applyRuleset(removal);
  }

  /**
   * After a restart, every live sandbox's port gets its MAC pinned: one attached by a version that did
   * not pin MACs has a random one, which the bridge table would otherwise drop from now on.
   */
  private async pinLivePorts(liveIds: string[]): Promise<void> {
    const { config, allocator } = this.ready();
    const state = await readTableState(config);
    for (const id of liveIds) {
      const lease = allocator.get(id);
      const names = sandboxNames(config, id);
      if (!lease || state.portMacs.some((port) => port.ifname === names.hostVeth)) continue;
      const mac = await sandboxEth0Mac(names.netnsPath);
      if (!mac) continue;
      await hardenPort(names.hostVeth, mac).catch((error: Error) => config.warn(`port of live sandbox ${id} could not be pinned: ${error.message}`));
      await applyRuleset(portMacLine('add', config, names.hostVeth, mac) + '\n');
    }
  }

  /** After a restart, live allowlist sandboxes get their hostnames refreshed again. */
  private async resumeRefreshes(liveIds: string[]): Promise<void> {
    const { allocator, refresher } = this.ready();
    for (const id of liveIds) {
      const lease = allocator.get(id);
      if (lease?.mode !== 'allowlist' || refresher.has(id)) continue;
      const allowed = await refresher.register({ id, ...parseAllowlist(lease.allowlist) });
      await this.applyAllowed(id, allowed).catch((error: Error) => {
        this.ready().config.warn(`allowlist of live sandbox ${id} could not be restored: ${error.message}`);
      });
    }
  }

  private applyAllowed(id: string, allowed: string[]): Promise<void> {
    return this.withLock(id, async () => {
      const { config, allocator } = this.ready();
      if (allocator.get(id)?.mode !== 'allowlist') return;
      await applyRuleset(allowSetRuleset(config, sandboxNames(config, id).allowSet, allowed));
    });
  }

  /** The first `ip netns add` makes /run/netns a shared mount; doing it once here avoids racing it later. */
  private async ensureNetnsMount(config: NetworkConfig): Promise<void> {
    const probe = `${config.netnsPrefix}init-probe`;
    await run('ip', ['netns', 'add', probe]).catch(() => undefined);
    await run('ip', ['netns', 'del', probe]).catch(() => undefined);
  }

  private withLock<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(id) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.locks.set(id, tail);
    void tail.then(() => {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    });
    return result;
  }
}

export function createSandboxNetwork(options: NetworkOptions): SandboxNetwork {
  return new LinuxSandboxNetwork(options);
}
