// The SandboxRuntime both OCI drivers share: rootfs, network, bundle, exec plumbing, usage, clean-up.
// Only the runtime CLI calls differ, and those live behind OciDriver (runc/, gvisor/).
import { access, mkdir, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentEndpoint } from '../agent/endpoint.js';
import { AgentConnectionLost, runOverAgent } from '../agent/run-command.js';
import { canLimitSwap, cgroupChildren, cgroupDirs, readCgroupUsage, setCgroupFrozen, setCgroupLimits } from '../host/cgroups.js';
import { mountOverlay, mountPointsUnder, unmount } from '../host/mounts.js';
import { sandboxNameFiles, type SandboxNetwork } from '../network/index.js';
import { runtimePaths, sandboxPaths, type SandboxPaths } from '../paths.js';
import { createSandboxRootfs, removeSandboxRootfs } from '../rootfs/sandbox-rootfs.js';
import { OutsideRootfs, writeFileInRootfs } from '../rootfs/confined-write.js';
import { diskUsedBytes } from '../rootfs/disk.js';
import { DiskPool } from '../rootfs/disk-pool.js';
import { backgroundNiceness, compressTar, replaceUpperDir, tarUpperDir } from '../rootfs/upper-archive.js';
import { findTemplate, howToMakeReady } from '../templates/catalog.js';
import { templateLowerDirs } from '../templates/template-store.js';
import { SandboxAlreadyExists, SandboxNotFound, SandboxNotRunning, TemplateNotReady } from '../errors.js';
import type {
  ExecRequest, ExecResult, FilesystemSnapshot, ListeningPort, NetworkMode, PtyProcess, PtyRequest, ReconcileResult, RuntimeName,
  SandboxInfo, SandboxRuntime, SandboxShape, SandboxSpec, SandboxState, SandboxUsage, WarmPoolOptions, WarmPoolStatus,
} from '../runtime.js';
import { buildOciConfig, defaultPidsLimit, extraEnvironment } from './bundle.js';
import type { OciDriver } from './driver.js';
import { runPreparedExec } from './exec-process.js';
import { ListeningPortReader, parseProcNetTcp } from './listening-ports.js';
import { spawnPty } from './pty.js';
import { readSandboxRecord, sandboxCgroupParent, sandboxCgroupsPath, writeSandboxRecord, type SandboxRecord } from './sandbox-record.js';
import { WarmPool } from './warm-pool.js';

export interface OciRuntimeOptions {
  dataDir: string;
  network: SandboxNetwork;
  /** Resolvers written into each sandbox's /etc/resolv.conf; default: what the network layer allows. */
  dnsServers?: string[];
  pidsLimit?: number;
}

/**
 * How long an exec waits for an idle agent connection before falling back to the runtime's own exec.
 * Right after start or a server restart the agent is still (re)connecting; after that one is always idle.
 */
const agentWaitMs = 5000;

export class OciSandboxRuntime implements SandboxRuntime {
  readonly name: RuntimeName;
  private readonly records = new Map<string, SandboxRecord>();
  private readonly networkPids = new Map<string, number>();
  private readonly agents = new Map<string, AgentEndpoint>();
  /** Destroys under way: a second destroy of the same sandbox waits for the first instead of racing it. */
  private readonly destroying = new Map<string, Promise<void>>();
  /**
   * Removal of a checkpointed sandbox's stopped container, started after the pause answered (true once
   * done). A resume or destroy waits for it, and repeats it when it failed.
   */
  private readonly checkpointRemovals = new Map<string, Promise<boolean>>();
  private readonly portReader = new ListeningPortReader();
  private readonly diskPool: DiskPool;
  private warmPool: WarmPool | null = null;

  constructor(
    private readonly driver: OciDriver,
    private readonly options: OciRuntimeOptions,
  ) {
    this.name = driver.name;
    this.diskPool = new DiskPool(runtimePaths(options.dataDir).diskPoolDir);
  }

  hostAddress(): string | null {
    return this.options.network.gatewayAddress?.() ?? null;
  }

  async init(): Promise<void> {
    await mkdir(runtimePaths(this.options.dataDir).sandboxesDir, { recursive: true, mode: 0o700 });
    await this.driver.prepareHost();
    await this.options.network.init();
  }

  async create(spec: SandboxSpec): Promise<SandboxInfo> {
    if (this.warmPool?.isReserved(spec.id)) return this.claim(spec);
    return this.start(spec);
  }

  private async start(spec: SandboxSpec): Promise<SandboxInfo> {
    const template = findTemplate(spec.template);
    const lowerDirs = template ? await templateLowerDirs(this.options.dataDir, spec.template) : null;
    if (!template || !lowerDirs) {
      throw new TemplateNotReady(spec.template, template ? howToMakeReady(template) : 'unknown template');
    }
    const paths = this.paths(spec.id);
    if (this.records.has(spec.id) || (await readSandboxRecord(paths.stateFile))) throw new SandboxAlreadyExists(spec.id);
    try {
      const [, { netnsPath, ip }, agent] = await Promise.all([
        createSandboxRootfs({ paths, lowerDirs, diskGb: spec.diskGb, hostname: spec.id, diskPool: this.diskPool }),
        this.options.network.attach(spec.id, spec.networkMode, spec.allowlist),
        AgentEndpoint.listen(paths.agentDir),
      ]);
      this.agents.set(spec.id, agent);
      await this.writeNameFiles(paths, spec.id, spec.networkMode, ip);
      const record: SandboxRecord = {
        id: spec.id, runtime: this.name, template: spec.template, env: spec.env, networkMode: spec.networkMode,
        netnsPath, ip, cgroupsPath: sandboxCgroupsPath(spec.id), paused: false, agent: true, createdAt: new Date().toISOString(),
      };
      await mkdir(paths.bundleDir, { recursive: true });
      await this.writeBundleConfig(spec, record);
      await writeSandboxRecord(paths.stateFile, record);
      await this.driver.start(spec.id, paths.bundleDir, netnsPath, spec.networkMode);
      this.records.set(spec.id, record);
      return { id: spec.id, ip };
    } catch (error) {
      await this.destroy(spec.id).catch(() => {});
      throw error;
    }
  }

  /** config.json: what the sandbox starts from, also again after a snapshot restore or a checkpoint. */
  private async writeBundleConfig(spec: SandboxSpec, record: SandboxRecord): Promise<void> {
    const paths = this.paths(spec.id);
    const config = await buildOciConfig({
      id: spec.id, rootfs: paths.rootfs, env: spec.env, cpus: spec.cpus, memoryMb: spec.memoryMb,
      pidsLimit: this.options.pidsLimit ?? defaultPidsLimit, cgroupsPath: record.cgroupsPath, agentDir: paths.agentDir,
      netnsPath: this.driver.joinsNetnsFromConfig ? record.netnsPath : null, seccomp: this.driver.usesSeccompProfile,
      cgroupfs: this.driver.mountsCgroupfs,
    });
    await writeFile(path.join(paths.bundleDir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  }

  startWarmPool(options: WarmPoolOptions): void {
    if (this.warmPool || !Object.values(options.targets).some((count) => count > 0)) return;
    this.warmPool = new WarmPool({
      start: (spec) => this.startForPool(spec),
      destroy: (id) => this.destroy(id),
      alive: (id) => (this.agents.get(id)?.idleConnections ?? 0) > 0,
      templateReady: async (template) => Boolean(findTemplate(template) && (await templateLowerDirs(this.options.dataDir, template))),
      memoryFixedAtStart: this.driver.sizesMemoryAtStart,
    }, options);
    this.warmPool.start();
  }

  reserveWarm(shape: SandboxShape): string | null {
    return this.warmPool?.reserve(shape) ?? null;
  }

  releaseWarm(id: string): void {
    this.warmPool?.release(id);
  }

  warmPoolStatus(): WarmPoolStatus[] {
    return this.warmPool?.status() ?? [];
  }

  /** A pool sandbox is ready once its agent has connected: the first exec after a claim starts at once. */
  private async startForPool(spec: SandboxSpec): Promise<void> {
    await this.start(spec);
    if (!(await this.agents.get(spec.id)?.waitConnected(agentWaitMs))) {
      await this.destroy(spec.id).catch(() => {});
      throw new Error(`the agent of pool sandbox ${spec.id} did not connect`);
    }
  }

  /**
   * Makes a reserved pool sandbox the one `spec` asks for: its cpu and memory limits now (cgroup files),
   * its env on every later exec and terminal (kept in the record), and both in config.json for a restart.
   * Everything else (id, hostname, rootfs, disk, network) it was started with already.
   * Should the pool sandbox turn out unusable, the sandbox is started cold under the same id.
   */
  private async claim(spec: SandboxSpec): Promise<SandboxInfo> {
    try {
      const record = await this.record(spec.id);
      const claimed: SandboxRecord = { ...record, env: spec.env, createdAt: new Date().toISOString() };
      await Promise.all([
        canLimitSwap().then((noSwap) => setCgroupLimits(record.cgroupsPath, { cpus: spec.cpus, memoryBytes: spec.memoryMb * 1024 * 1024, noSwap })),
        this.writeBundleConfig(spec, claimed),
        this.saveRecord(claimed),
      ]);
      this.warmPool?.claimed(spec.id, true);
      return { id: spec.id, ip: record.ip };
    } catch {
      this.warmPool?.claimed(spec.id, false);
      await this.destroy(spec.id).catch(() => {});
      return this.start(spec);
    }
  }

  async exec(id: string, request: ExecRequest): Promise<ExecResult> {
    const record = await this.runningRecord(id);
    const argv = request.argv && request.argv.length > 0 ? request.argv : ['/bin/sh', '-c', request.command];
    const cwd = request.cwd ?? '/workspace';
    const connection = record.agent ? await this.agents.get(id)?.acquire(agentWaitMs) : null;
    if (!connection) return this.execThroughRuntime(record, argv, cwd, request);
    try {
      // The agent's own environment is the one the sandbox started with: a claimed pool sandbox's lacks the sandbox env.
      return await runOverAgent(connection, { argv, cwd, env: extraEnvironment({ ...record.env, ...request.env }), stdin: request.stdin }, request);
    } catch (error) {
      // A sandbox that is going down takes a moment to be reported so (gVisor's sandbox process exits last).
      if (error instanceof AgentConnectionLost) {
        for (let attempt = 0; attempt < 10; attempt++, await sleep(100)) await this.requireRunning(id);
      }
      throw error;
    }
  }

  /** `runc exec` / `runsc exec`: for sandboxes without an agent, or when it does not answer. */
  private async execThroughRuntime(record: SandboxRecord, argv: string[], cwd: string, request: ExecRequest): Promise<ExecResult> {
    const { id } = record;
    const prepared = this.driver.prepareExec(id, this.paths(id).dir, {
      args: argv,
      // The runtimes start exec'd processes from the env the container started with, which a claimed pool
      // sandbox started without the sandbox env: it goes on the command line with the extras.
      env: extraEnvironment({ ...record.env, ...request.env }),
      cwd,
      tty: false,
    });
    const result = await runPreparedExec(prepared, request);
    // A runtime that cannot reach the container also exits non-zero; tell that apart from the command failing.
    if (result.exitCode !== 0 && !result.timedOut) await this.requireRunning(id);
    return result;
  }

  private async requireRunning(id: string): Promise<void> {
    const status = await this.driver.status(id);
    if (status !== 'running') throw new SandboxNotRunning(id, status === 'paused' ? 'paused' : 'stopped');
  }

  async openPty(id: string, request: PtyRequest): Promise<PtyProcess> {
    const record = await this.runningRecord(id);
    const prepared = this.driver.prepareExec(id, this.paths(id).dir, {
      // The runtime sizes the terminal a moment after the shell starts; set the size first so the very
      // first command already sees it.
      args: ['/bin/sh', '-c', `stty rows ${Math.trunc(request.rows)} cols ${Math.trunc(request.cols)} 2>/dev/null; if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi`],
      env: extraEnvironment({ ...record.env, TERM: 'xterm-256color', ...request.env }),
      cwd: request.cwd ?? '/workspace',
      tty: true,
    });
    return spawnPty(prepared, request.cols, request.rows, this.driver.needsRawHostTerminal);
  }

  /**
   * No `sync` inside first: gVisor writes file data straight through to the host files (and a checkpoint
   * writes back anything cached), so the automatic snapshot already sees every write (docs/runtime.md).
   */
  async pause(id: string): Promise<void> {
    const record = await this.record(id);
    if (await this.checkpoint(record)) return;
    await this.driver.freeze(id, record.cgroupsPath);
    await this.saveRecord({ ...record, paused: true });
  }

  /**
   * A memory checkpoint where the driver can take one (gVisor, `none` network): the agent's host
   * connections must all be closed first (runsc cannot save an open host socket), so a sandbox with a
   * command still running over one is frozen instead. False when no checkpoint was taken.
   */
  private async checkpoint(record: SandboxRecord): Promise<boolean> {
    if (!this.driver.checkpoint || !this.driver.canCheckpoint(record.networkMode)) return false;
    const agent = this.agents.get(record.id);
    if (agent && agent.busyConnections > 0) return false;
    this.agents.delete(record.id);
    await agent?.close();
    try {
      await this.driver.checkpoint(record.id, this.paths(record.id).checkpointDir);
    } catch (error) {
      // runsc leaves the sandbox running when it refuses: keep serving it and freeze instead.
      if ((await this.driver.status(record.id)) === 'running') {
        if (record.agent) this.agents.set(record.id, await AgentEndpoint.listen(this.paths(record.id).agentDir));
        return false;
      }
      throw error;
    }
    this.networkPids.delete(record.id);
    this.portReader.forget(record.id);
    await this.saveRecord({ ...record, paused: true, checkpointed: true });
    // The image is complete and the sandbox has stopped using CPU and memory; removing the stopped
    // container waits until the host reaps its process (over a second here), so that happens afterwards,
    // and only from the next turn of the event loop: its first spawn would otherwise delay the pause's answer.
    const removal = new Promise((resolve) => setImmediate(resolve)).then(() => this.removeContainer(record, { background: true }));
    this.checkpointRemovals.set(record.id, removal.then(() => true, () => false));
    return true;
  }

  /** Waits for a checkpointed sandbox's container to be gone; removes it now if the removal after the pause failed. */
  private async checkpointedContainerRemoved(record: SandboxRecord): Promise<void> {
    const removal = this.checkpointRemovals.get(record.id);
    if (removal && !(await removal)) await this.removeContainer(record);
    this.checkpointRemovals.delete(record.id);
  }

  private async removeContainer(record: SandboxRecord, options: { background?: boolean } = {}): Promise<void> {
    await this.driver.cli.remove(record.id, options.background ? backgroundNiceness : undefined);
    await removeCgroups(record.cgroupsPath);
  }

  async resume(id: string): Promise<void> {
    const record = await this.record(id);
    if (record.checkpointed && this.driver.restore) {
      const paths = this.paths(id);
      await this.checkpointedContainerRemoved(record);
      if (record.agent && !this.agents.has(id)) this.agents.set(id, await AgentEndpoint.listen(paths.agentDir));
      await this.driver.restore(id, paths.bundleDir, record.netnsPath, record.networkMode, paths.checkpointDir);
      await this.saveRecord({ ...record, paused: false, checkpointed: false });
      return;
    }
    await this.driver.thaw(id, record.cgroupsPath);
    await this.saveRecord({ ...record, paused: false });
  }

  async snapshotFilesystem(id: string, archiveFile: string): Promise<FilesystemSnapshot> {
    const record = await this.record(id);
    const tarFile = `${archiveFile}.tar`;
    const frozenAlready = record.paused;
    const started = performance.now();
    if (!frozenAlready) await this.driver.freeze(id, record.cgroupsPath);
    try {
      await tarUpperDir(this.paths(id).upperDir, tarFile, frozenAlready);
    } catch (error) {
      await rm(tarFile, { force: true });
      throw error;
    } finally {
      if (!frozenAlready) await this.driver.thaw(id, record.cgroupsPath);
    }
    const frozenMs = frozenAlready ? 0 : performance.now() - started;
    return { sizeBytes: await compressTar(tarFile, archiveFile), frozenMs };
  }

  async restoreFilesystem(id: string, archiveFile: string): Promise<void> {
    const record = await this.runningRecord(id);
    const lowerDirs = await templateLowerDirs(this.options.dataDir, record.template);
    if (!lowerDirs) throw new TemplateNotReady(record.template, 'the template was removed from this server');
    const paths = this.paths(id);
    // Every process goes: a file swapped under a running program would leave it in a state no snapshot had.
    await this.driver.cli.remove(id);
    this.networkPids.delete(id);
    this.portReader.forget(id);
    await unmount(paths.rootfs);
    await replaceUpperDir(paths.upperDir, paths.workDir, archiveFile);
    await mountOverlay({ lowerDirs, upperDir: paths.upperDir, workDir: paths.workDir, target: paths.rootfs });
    // The archive may come from another sandbox of the account: this one keeps its own name and address.
    // An archive whose /etc points outside the sandbox (a symlink it made) gets nothing written through
    // it: the sandbox starts with the /etc it chose, and the host's files stay untouched.
    try {
      await writeFileInRootfs(paths.rootfs, 'etc/hostname', `${id}\n`);
      await this.writeNameFiles(paths, id, record.networkMode, record.ip);
    } catch (error) {
      if (!(error instanceof OutsideRootfs)) throw error;
    }
    await removeCgroups(record.cgroupsPath);
    await this.driver.start(id, paths.bundleDir, record.netnsPath, record.networkMode);
    await this.saveRecord({ ...record, paused: false });
  }

  async state(id: string): Promise<SandboxState> {
    if ((await this.record(id).catch(() => null))?.checkpointed) return 'paused';
    const status = await this.driver.status(id);
    if (status === 'running' || status === 'paused') return status;
    return 'stopped';
  }

  private async writeNameFiles(paths: SandboxPaths, id: string, mode: NetworkMode, ip: string | null): Promise<void> {
    const nameFiles = await sandboxNameFiles({ dnsServers: this.options.dnsServers }, { id, mode, ip });
    await writeFileInRootfs(paths.rootfs, 'etc/resolv.conf', nameFiles.resolvConf);
    await writeFileInRootfs(paths.rootfs, 'etc/hosts', nameFiles.hosts);
  }

  async listeningPorts(id: string): Promise<ListeningPort[]> {
    const record = await this.record(id);
    if (this.driver.ownNetworkStack(record.networkMode)) return this.listeningPortsInside(id);
    let pid = this.networkPids.get(id);
    if (pid === undefined) {
      pid = await this.driver.networkPid(id);
      this.networkPids.set(id, pid);
    }
    return this.portReader.read(id, pid);
  }

  async networkNamespace(id: string): Promise<string | null> {
    const record = await this.record(id);
    return record.netnsPath && !this.driver.ownNetworkStack(record.networkMode) ? record.netnsPath : null;
  }

  /** gVisor's netstack (a `none` sandbox) shows its sockets only in the sandbox's own /proc. */
  private async listeningPortsInside(id: string): Promise<ListeningPort[]> {
    const result = await this.exec(id, { command: 'cat /proc/net/tcp; echo =; cat /proc/net/tcp6', timeoutMs: 5000, maxOutputBytes: 1024 * 1024 });
    const [tcp, tcp6 = ''] = result.stdout.toString('utf8').split('\n=\n');
    const seen = new Set<string>();
    return [...parseProcNetTcp(tcp, false), ...parseProcNetTcp(tcp6, true)]
      .filter((port) => !seen.has(`${port.address}|${port.port}`) && seen.add(`${port.address}|${port.port}`))
      .sort((a, b) => a.port - b.port);
  }

  async usage(id: string): Promise<SandboxUsage> {
    const record = await this.record(id);
    const [cgroup, diskBytes] = await Promise.all([
      readCgroupUsage(record.cgroupsPath).catch(() => ({ cpuSeconds: 0, memoryBytes: 0 })),
      diskUsedBytes(this.paths(id).diskMount).catch(() => 0),
    ]);
    return { ...cgroup, diskBytes };
  }

  destroy(id: string): Promise<void> {
    const underway = this.destroying.get(id);
    if (underway) return underway;
    const done = this.tearDown(id).finally(() => this.destroying.delete(id));
    this.destroying.set(id, done);
    return done;
  }

  private async tearDown(id: string): Promise<void> {
    const agent = this.agents.get(id);
    this.agents.delete(id);
    await agent?.close();
    await this.checkpointRemovals.get(id);
    this.checkpointRemovals.delete(id);
    this.records.delete(id);
    this.networkPids.delete(id);
    this.portReader.forget(id);
    // A frozen sandbox cannot answer the runtime's kill (gVisor's sandbox process would hang the delete).
    await setCgroupFrozen(sandboxCgroupsPath(id), false).catch(() => {});
    await this.driver.remove(id, sandboxCgroupsPath(id));
    await removeSandboxRootfs(this.paths(id));
    await this.options.network.detach(id);
    await removeCgroups(sandboxCgroupsPath(id));
  }

  async reconcile(knownIds: string[]): Promise<ReconcileResult> {
    // This process's own pool sandboxes are in no database, but they are not leftovers.
    const known = new Set([...knownIds, ...(this.warmPool?.ids() ?? [])]);
    const result: ReconcileResult = { alive: [], dead: [], cleaned: [] };
    for (const id of knownIds) {
      const status = await this.driver.status(id);
      const record = await readSandboxRecord(this.paths(id).stateFile);
      if (record?.checkpointed && (await exists(this.paths(id).checkpointDir))) {
        // Checkpointed to disk: no process to find, and none needed until it is resumed. The previous
        // server may have stopped before it removed the stopped container.
        if (status !== null) await this.removeContainer(record);
        this.records.set(id, record);
        result.alive.push(id);
      } else if (record && (status === 'running' || status === 'paused')) {
        this.records.set(id, { ...record, paused: status === 'paused' });
        if (record.agent && !this.agents.has(id)) this.agents.set(id, await AgentEndpoint.listen(this.paths(id).agentDir));
        result.alive.push(id);
      } else {
        result.dead.push(id);
      }
    }
    const leftovers = new Set<string>();
    for (const id of await this.driver.cli.list()) if (!known.has(id)) leftovers.add(id);
    const sandboxesDir = runtimePaths(this.options.dataDir).sandboxesDir;
    for (const id of await readdir(sandboxesDir).catch(() => [] as string[])) if (!known.has(id)) leftovers.add(id);
    for (const point of await mountPointsUnder(sandboxesDir)) {
      const id = path.relative(sandboxesDir, point).split(path.sep)[0];
      if (id && !known.has(id)) leftovers.add(id);
    }
    for (const id of leftovers) {
      await this.destroy(id);
      result.cleaned.push(id);
    }
    // Cgroups are host-wide (shared by every data dir): only empty ones are removed, a live one refuses rmdir.
    for (const id of await cgroupChildren(sandboxCgroupParent)) {
      if (!known.has(id) && (await removeCgroups(sandboxCgroupsPath(id))) && !result.cleaned.includes(id)) {
        result.cleaned.push(id);
      }
    }
    for (const id of await this.options.network.reconcile([...known])) {
      if (!result.cleaned.includes(id)) result.cleaned.push(id);
    }
    return result;
  }

  async close(): Promise<void> {
    await this.warmPool?.close();
    this.warmPool = null;
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
    await Promise.all(this.checkpointRemovals.values());
    this.agents.clear();
    await this.diskPool.stop();
    await this.options.network.close();
  }

  private paths(id: string): SandboxPaths {
    return sandboxPaths(this.options.dataDir, id);
  }

  private async record(id: string): Promise<SandboxRecord> {
    const cached = this.records.get(id);
    if (cached) return cached;
    const record = await readSandboxRecord(this.paths(id).stateFile);
    if (!record) throw new SandboxNotFound(id);
    this.records.set(id, record);
    return record;
  }

  private async runningRecord(id: string): Promise<SandboxRecord> {
    const record = await this.record(id);
    if (record.paused) throw new SandboxNotRunning(id, 'paused');
    return record;
  }

  private async saveRecord(record: SandboxRecord): Promise<void> {
    this.records.set(record.id, record);
    await writeSandboxRecord(this.paths(record.id).stateFile, record);
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(() => true, () => false);
}

/** Removes the sandbox's cgroup in every hierarchy; true when something was removed. */
async function removeCgroups(cgroupsPath: string): Promise<boolean> {
  let removed = false;
  for (const dir of await cgroupDirs(cgroupsPath)) {
    removed = (await rmdir(dir).then(() => true, () => false)) || removed;
  }
  return removed;
}
