// The SandboxRuntime both OCI drivers share: start (rootfs, network, bundle), the warm pool, usage and
// destroy here; exec, pause/resume, filesystem snapshots and reconcile in their own files beside it.
// Only the runtime CLI calls differ, and those live behind OciDriver (runc/, gvisor/).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentEndpoint } from '../agent/endpoint.js';
import { canLimitSwap, readCgroupUsage, setCgroupFrozen, setCgroupLimits } from '../host/cgroups.js';
import { runtimePaths, type SandboxPaths } from '../paths.js';
import { createSandboxRootfs, removeSandboxRootfs } from '../rootfs/sandbox-rootfs.js';
import { diskUsedBytes } from '../rootfs/disk.js';
import { DiskPool } from '../rootfs/disk-pool.js';
import { findTemplate, howToMakeReady } from '../templates/catalog.js';
import { templateLowerDirs } from '../templates/template-store.js';
import { SandboxAlreadyExists, TemplateNotReady } from '../errors.js';
import type {
  ExecRequest,
  ExecResult,
  FilesystemSnapshot,
  ListeningPort,
  PtyProcess,
  PtyRequest,
  ReconcileResult,
  RuntimeName,
  SandboxInfo,
  SandboxRuntime,
  SandboxShape,
  SandboxSpec,
  SandboxState,
  SandboxUsage,
  WarmPoolOptions,
  WarmPoolStatus,
} from '../runtime.js';
import { buildOciConfig, defaultPidsLimit } from './bundle.js';
import type { OciDriver } from './driver.js';
import { execInSandbox, openSandboxPty } from './exec.js';
import { restoreSandboxFilesystem, snapshotSandboxFilesystem, writeNameFiles } from './filesystem-snapshots.js';
import { parseProcNetTcp } from './listening-ports.js';
import { agentWaitMs, LiveSandboxes, removeCgroups, type OciRuntimeOptions } from './live-sandboxes.js';
import { pauseSandbox, resumeSandbox } from './pause-resume.js';
import { reconcileSandboxes } from './reconcile.js';
import { readSandboxRecord, sandboxCgroupsPath, writeSandboxRecord, type SandboxRecord } from './sandbox-record.js';
import { WarmPool } from './warm-pool.js';

export type { OciRuntimeOptions } from './live-sandboxes.js';

export class OciSandboxRuntime implements SandboxRuntime {
  readonly name: RuntimeName;
  private readonly live: LiveSandboxes;
  /** Destroys under way: a second destroy of the same sandbox waits for the first instead of racing it. */
  private readonly destroying = new Map<string, Promise<void>>();
  private readonly diskPool: DiskPool;
  private warmPool: WarmPool | null = null;

  constructor(
    private readonly driver: OciDriver,
    private readonly options: OciRuntimeOptions,
  ) {
    this.name = driver.name;
    this.live = new LiveSandboxes(driver, options);
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
    if (this.live.records.has(spec.id) || (await readSandboxRecord(paths.stateFile))) throw new SandboxAlreadyExists(spec.id);
    try {
      const [, { netnsPath, ip }, agent] = await Promise.all([
        createSandboxRootfs({ paths, lowerDirs, diskGb: spec.diskGb, hostname: spec.id, diskPool: this.diskPool }),
        this.options.network.attach(spec.id, spec.networkMode, spec.allowlist),
        AgentEndpoint.listen(paths.agentDir),
      ]);
      this.live.agents.set(spec.id, agent);
      await writeNameFiles(this.live, paths, spec.id, spec.networkMode, ip);
      const record: SandboxRecord = {
        id: spec.id,
        runtime: this.name,
        template: spec.template,
        env: spec.env,
        networkMode: spec.networkMode,
        netnsPath,
        ip,
        cgroupsPath: sandboxCgroupsPath(spec.id),
        paused: false,
        agent: true,
        createdAt: new Date().toISOString(),
      };
      await mkdir(paths.bundleDir, { recursive: true });
      await this.writeBundleConfig(spec, record);
      await writeSandboxRecord(paths.stateFile, record);
      await this.driver.start(spec.id, paths.bundleDir, netnsPath, spec.networkMode);
      this.live.records.set(spec.id, record);
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
      id: spec.id,
      rootfs: paths.rootfs,
      env: spec.env,
      cpus: spec.cpus,
      memoryMb: spec.memoryMb,
      pidsLimit: this.options.pidsLimit ?? defaultPidsLimit,
      cgroupsPath: record.cgroupsPath,
      agentDir: paths.agentDir,
      netnsPath: this.driver.joinsNetnsFromConfig ? record.netnsPath : null,
      seccomp: this.driver.usesSeccompProfile,
      cgroupfs: this.driver.mountsCgroupfs,
    });
    await writeFile(path.join(paths.bundleDir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  }

  startWarmPool(options: WarmPoolOptions): void {
    if (this.warmPool || !Object.values(options.targets).some((count) => count > 0)) return;
    this.warmPool = new WarmPool(
      {
        start: (spec) => this.startForPool(spec),
        destroy: (id) => this.destroy(id),
        alive: (id) => (this.live.agents.get(id)?.idleConnections ?? 0) > 0,
        templateReady: async (template) => Boolean(findTemplate(template) && (await templateLowerDirs(this.options.dataDir, template))),
        memoryFixedAtStart: this.driver.sizesMemoryAtStart,
      },
      options,
    );
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
    if (!(await this.live.agents.get(spec.id)?.waitConnected(agentWaitMs))) {
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
      const record = await this.live.record(spec.id);
      const claimed: SandboxRecord = { ...record, env: spec.env, createdAt: new Date().toISOString() };
      await Promise.all([
        canLimitSwap().then((noSwap) => setCgroupLimits(record.cgroupsPath, { cpus: spec.cpus, memoryBytes: spec.memoryMb * 1024 * 1024, noSwap })),
        this.writeBundleConfig(spec, claimed),
        this.live.saveRecord(claimed),
      ]);
      this.warmPool?.claimed(spec.id, true);
      return { id: spec.id, ip: record.ip };
    } catch {
      this.warmPool?.claimed(spec.id, false);
      await this.destroy(spec.id).catch(() => {});
      return this.start(spec);
    }
  }

  exec(id: string, request: ExecRequest): Promise<ExecResult> {
    return execInSandbox(this.live, id, request);
  }

  openPty(id: string, request: PtyRequest): Promise<PtyProcess> {
    return openSandboxPty(this.live, id, request);
  }

  pause(id: string): Promise<void> {
    return pauseSandbox(this.live, id);
  }

  resume(id: string): Promise<void> {
    return resumeSandbox(this.live, id);
  }

  snapshotFilesystem(id: string, archiveFile: string): Promise<FilesystemSnapshot> {
    return snapshotSandboxFilesystem(this.live, id, archiveFile);
  }

  restoreFilesystem(id: string, archiveFile: string): Promise<void> {
    return restoreSandboxFilesystem(this.live, id, archiveFile);
  }

  async state(id: string): Promise<SandboxState> {
    if ((await this.live.record(id).catch(() => null))?.checkpointed) return 'paused';
    const status = await this.driver.status(id);
    if (status === 'running' || status === 'paused') return status;
    return 'stopped';
  }

  async listeningPorts(id: string): Promise<ListeningPort[]> {
    const record = await this.live.record(id);
    if (this.driver.ownNetworkStack(record.networkMode)) return this.listeningPortsInside(id);
    let pid = this.live.networkPids.get(id);
    if (pid === undefined) {
      pid = await this.driver.networkPid(id);
      this.live.networkPids.set(id, pid);
    }
    return this.live.portReader.read(id, pid);
  }

  async networkNamespace(id: string): Promise<string | null> {
    const record = await this.live.record(id);
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
    const record = await this.live.record(id);
    const [cgroup, diskBytes] = await Promise.all([readCgroupUsage(record.cgroupsPath).catch(() => ({ cpuSeconds: 0, memoryBytes: 0 })), diskUsedBytes(this.paths(id).diskMount).catch(() => 0)]);
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
    const agent = this.live.agents.get(id);
    this.live.agents.delete(id);
    await agent?.close();
    await this.live.checkpointRemovals.get(id);
    this.live.checkpointRemovals.delete(id);
    this.live.records.delete(id);
    this.live.forgetProcesses(id);
    // A frozen sandbox cannot answer the runtime's kill (gVisor's sandbox process would hang the delete).
    await setCgroupFrozen(sandboxCgroupsPath(id), false).catch(() => {});
    await this.driver.remove(id, sandboxCgroupsPath(id));
    await removeSandboxRootfs(this.paths(id));
    await this.options.network.detach(id);
    await removeCgroups(sandboxCgroupsPath(id));
  }

  reconcile(knownIds: string[]): Promise<ReconcileResult> {
    return reconcileSandboxes(this.live, knownIds, this.warmPool?.ids() ?? [], (id) => this.destroy(id));
  }

  async close(): Promise<void> {
    await this.warmPool?.close();
    this.warmPool = null;
    await Promise.all([...this.live.agents.values()].map((agent) => agent.close()));
    await Promise.all(this.live.checkpointRemovals.values());
    this.live.agents.clear();
    await this.diskPool.stop();
    await this.options.network.close();
  }

  private paths(id: string): SandboxPaths {
    return this.live.paths(id);
  }
}
