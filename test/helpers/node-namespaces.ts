// Several `paddock serve` nodes on one machine, each in a network namespace of its own: a bridge in the
// root namespace (`pclu<slot>`, 10.89.<slot>.1/24), per node a namespace with a veth on that bridge (eth0,
// 10.89.<slot>.1x/24), and PostgreSQL — which listens on 127.0.0.1 of the root namespace only and is shared
// with other tests — reached through a TCP relay on the bridge address. Nodes are started with
// `nsenter --net`, not `ip netns exec`, which remounts /sys and hides the cgroup tree runc needs.
// Names avoid the `pdk`/`pq` prefixes the host's own Paddock tables match interfaces by; the slot
// (PADDOCK_TEST_NETWORK_BASE / 10) keeps two checkouts' runs apart, as the network profiles do.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEST_TEMPLATES_DIR } from './app.js';
import { BIN } from './cli.js';
import { startTcpRelay, type TcpRelay } from './tcp-relay.js';

const exec = promisify(execFile);
const SLOT = Number(process.env.PADDOCK_TEST_NETWORK_BASE ?? 0) / 10;
if (!Number.isInteger(SLOT) || SLOT < 0 || SLOT > 9) throw new Error('PADDOCK_TEST_NETWORK_BASE must be one of 0, 10, 20, … 90');
const BRIDGE = `pclu${SLOT}`;
/** The root namespace's address on the nodes' bridge, where the database relay listens. */
export const BRIDGE_ADDRESS = `10.89.${SLOT}.1`;
const PORT = 8080;

export interface NodeSpec {
  /** One letter: names the namespace, the veth, the sandbox network and the host id. */
  name: string;
  /** 1-9: the node's address is 10.89.<slot>.1<index>. */
  index: number;
  role: 'api' | 'worker';
}

export interface NamespaceNode {
  spec: NodeSpec;
  hostId: string;
  dataDir: string;
  /** http://10.89.<slot>.1x:8080, reachable from the test process over the bridge. */
  url: string;
  /** The running process; null when stopped. */
  child: ChildProcess | null;
  /** Everything the current and earlier processes printed. */
  output(): string;
}

async function sh(command: string, args: string[]): Promise<string> {
  return (await exec(command, args, { timeout: 30_000 })).stdout;
}

async function quiet(command: string, args: string[]): Promise<void> {
  await exec(command, args, { timeout: 30_000 }).catch(() => {});
}

const namespaceOf = (spec: NodeSpec) => `pcl${SLOT}node-${spec.name}`;
const addressOf = (spec: NodeSpec) => `10.89.${SLOT}.1${spec.index}`;
const outerVeth = (spec: NodeSpec) => `pcl${SLOT}v${spec.name}`;
const innerVeth = (spec: NodeSpec) => `pcl${SLOT}w${spec.name}`;
const inNamespace = (spec: NodeSpec, args: string[]) => ['--net=/run/netns/' + namespaceOf(spec), '--', ...args];

/** The node's own sandbox network, distinct from every other node's and from the host's. */
export function sandboxNetworkOf(spec: NodeSpec): Record<string, string> {
  return {
    PADDOCK_NETWORK_BRIDGE: `pcls${SLOT}${spec.name}`,
    PADDOCK_NETWORK_SUBNET: `10.${92 + spec.index}.0.0/16`,
    PADDOCK_NETWORK_TABLE: `paddock_cl${SLOT}${spec.name}`,
    PADDOCK_NETWORK_IF_PREFIX: `pcv${spec.name}`,
    PADDOCK_NETWORK_NETNS_PREFIX: `pcls${SLOT}-${spec.name}-`,
  };
}

export class NodeNamespaces {
  readonly nodes = new Map<string, NamespaceNode>();
  private relay: TcpRelay | null = null;
  private readonly logs = new Map<string, string>();

  constructor(private readonly specs: NodeSpec[]) {}

  node(name: string): NamespaceNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  /** The bridge, a namespace and veth per node (starting from a clean slate), and the database relay. */
  async create(): Promise<void> {
    await this.removeNetwork();
    await sh('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
    await sh('ip', ['addr', 'add', `${BRIDGE_ADDRESS}/24`, 'dev', BRIDGE]);
    await sh('ip', ['link', 'set', BRIDGE, 'up']);
    for (const spec of this.specs) {
      const ns = namespaceOf(spec);
      await sh('ip', ['netns', 'add', ns]);
      await sh('ip', ['link', 'add', outerVeth(spec), 'type', 'veth', 'peer', 'name', innerVeth(spec)]);
      await sh('ip', ['link', 'set', innerVeth(spec), 'netns', ns]);
      await sh('ip', ['link', 'set', outerVeth(spec), 'master', BRIDGE, 'up']);
      await sh('nsenter', inNamespace(spec, ['ip', 'link', 'set', innerVeth(spec), 'name', 'eth0']));
      await sh('nsenter', inNamespace(spec, ['ip', 'addr', 'add', `${addressOf(spec)}/24`, 'dev', 'eth0']));
      await sh('nsenter', inNamespace(spec, ['ip', 'link', 'set', 'eth0', 'up']));
      await sh('nsenter', inNamespace(spec, ['ip', 'link', 'set', 'lo', 'up']));
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `paddock-node-${spec.name}-`));
      fs.symlinkSync(TEST_TEMPLATES_DIR, path.join(dataDir, 'templates'));
      this.logs.set(spec.name, '');
      const output = () => this.logs.get(spec.name)!;
      this.nodes.set(spec.name, { spec, hostId: `node-${spec.name}`, dataDir, url: `http://${addressOf(spec)}:${PORT}`, child: null, output });
    }
  }

  /** A TCP relay from the bridge address to PostgreSQL on 127.0.0.1; returns the URL the nodes use. */
  async relayDatabase(databaseUrl: string): Promise<string> {
    const target = new URL(databaseUrl);
    this.relay = await startTcpRelay({ host: target.hostname, port: Number(target.port || 5432) }, { host: BRIDGE_ADDRESS });
    const relayed = new URL(databaseUrl);
    relayed.hostname = BRIDGE_ADDRESS;
    relayed.port = String(this.relay.port);
    return relayed.toString();
  }

  /** Starts `paddock serve` in the node's namespace and waits until it listens. */
  async start(name: string, env: Record<string, string>): Promise<NamespaceNode> {
    const node = this.node(name);
    const append = (text: string) => this.logs.set(name, this.logs.get(name)! + text);
    const child = spawn('nsenter', inNamespace(node.spec, [process.execPath, BIN, 'serve', '--role', node.spec.role]), {
      env: {
        ...process.env,
        PADDOCK_WARM_POOL: '0',
        ...env,
        ...sandboxNetworkOf(node.spec),
        PADDOCK_DATA: node.dataDir,
        PADDOCK_HOST: addressOf(node.spec),
        PADDOCK_PORT: String(PORT),
        PADDOCK_HOST_ID: node.hostId,
        PADDOCK_NODE_ADDRESS: node.url,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    node.child = child;
    let stdout = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
      append(String(d));
    });
    child.stderr!.on('data', (d) => append(String(d)));
    child.once('exit', () => {
      if (node.child === child) node.child = null;
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`node ${name} did not start:\n${node.output().slice(-3000)}`)), 90_000);
      const check = () => {
        if (!/^listening on /m.test(stdout)) return;
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve();
      };
      child.stdout!.on('data', check);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`node ${name} exited (${code ?? signal}):\n${node.output().slice(-3000)}`));
      });
    });
    return node;
  }

  /** Stops the node's process with `signal` and waits for it to exit. */
  async stop(name: string, signal: NodeJS.Signals): Promise<void> {
    const child = this.node(name).child;
    if (!child || child.exitCode !== null || child.signalCode) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /** Drops every packet on the node's eth0 (inside its namespace): the node is cut off from everything. */
  async cutOff(name: string): Promise<void> {
    const spec = this.node(name).spec;
    await sh(
      'nsenter',
      inNamespace(spec, [
        'nft',
        'add table inet pclcut; add chain inet pclcut input { type filter hook input priority -300; policy accept; }; add chain inet pclcut output { type filter hook output priority -300; policy accept; }; add rule inet pclcut input iifname "eth0" drop; add rule inet pclcut output oifname "eth0" drop',
      ]),
    );
  }

  async reconnect(name: string): Promise<void> {
    await sh('nsenter', inNamespace(this.node(name).spec, ['nft', 'delete', 'table', 'inet', 'pclcut']));
  }

  /** Runs `command` inside the node's namespace (its sandbox bridge, its nftables). */
  inside(name: string, command: string[]): Promise<string> {
    return sh('nsenter', inNamespace(this.node(name).spec, command));
  }

  /**
   * Leaves nothing behind: every node stopped, every sandbox of every data dir destroyed from inside its
   * node's namespace (containers, mounts, cgroups, /run/netns entries, leases), then the namespaces, veths,
   * bridge and relay. Safe after any failure, and to call twice.
   */
  async destroy(): Promise<void> {
    for (const name of this.nodes.keys()) await this.stop(name, 'SIGKILL');
    const failures: string[] = [];
    for (const node of this.nodes.values()) {
      try {
        if (fs.existsSync(`/run/netns/${namespaceOf(node.spec)}`)) {
          await exec(
            'nsenter',
            inNamespace(node.spec, [process.execPath, '--import', 'tsx', path.resolve('test/helpers/node-namespace-cleanup.ts'), node.dataDir, JSON.stringify(sandboxNetworkOf(node.spec))]),
            { timeout: 120_000 },
          );
        }
        fs.rmSync(node.dataDir, { recursive: true, force: true });
      } catch (error) {
        failures.push(`node ${node.spec.name}: ${(error as Error).message}`);
      }
    }
    await this.relay?.close();
    this.relay = null;
    await this.removeNetwork();
    if (failures.length) throw new Error(`cleanup failed: ${failures.join('; ')}`);
  }

  private async removeNetwork(): Promise<void> {
    for (const spec of this.specs) {
      // Sandbox namespaces of a node whose cleanup could not run (they hold nothing once its containers are gone).
      for (const entry of fs.existsSync('/run/netns') ? fs.readdirSync('/run/netns') : []) {
        if (entry.startsWith(sandboxNetworkOf(spec).PADDOCK_NETWORK_NETNS_PREFIX)) await quiet('ip', ['netns', 'del', entry]);
      }
      await quiet('ip', ['netns', 'del', namespaceOf(spec)]);
      await quiet('ip', ['link', 'del', outerVeth(spec)]);
    }
    await quiet('ip', ['link', 'del', BRIDGE]);
  }
}
