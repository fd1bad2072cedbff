// What one OCI runtime holds about its sandboxes while it runs, shared by its operations (exec,
// pause, snapshots, reconcile): the driver and options, the records cached from sandbox.json, the
// agent endpoints, the network pids, and the container removals a checkpoint left under way.
import { rmdir } from 'node:fs/promises';
import type { AgentEndpoint } from '../agent/endpoint.js';
import { cgroupDirs } from '../host/cgroups.js';
import type { SandboxNetwork } from '../network/index.js';
import { sandboxPaths, type SandboxPaths } from '../paths.js';
import { SandboxNotFound, SandboxNotRunning } from '../errors.js';
import type { OciDriver } from './driver.js';
import { ListeningPortReader } from './listening-ports.js';
import { readSandboxRecord, writeSandboxRecord, type SandboxRecord } from './sandbox-record.js';

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
export const agentWaitMs = 5000;

export class LiveSandboxes {
  readonly records = new Map<string, SandboxRecord>();
  readonly networkPids = new Map<string, number>();
  readonly agents = new Map<string, AgentEndpoint>();
  /**
   * Removal of a checkpointed sandbox's stopped container, started after the pause answered (true once
   * done). A resume or destroy waits for it, and repeats it when it failed.
   */
  readonly checkpointRemovals = new Map<string, Promise<boolean>>();
  readonly portReader = new ListeningPortReader();

  constructor(
    readonly driver: OciDriver,
    readonly options: OciRuntimeOptions,
  ) {}

  paths(id: string): SandboxPaths {
    return sandboxPaths(this.options.dataDir, id);
  }

  async record(id: string): Promise<SandboxRecord> {
    const cached = this.records.get(id);
    if (cached) return cached;
    const record = await readSandboxRecord(this.paths(id).stateFile);
    if (!record) throw new SandboxNotFound(id);
    this.records.set(id, record);
    return record;
  }

  async runningRecord(id: string): Promise<SandboxRecord> {
    const record = await this.record(id);
    if (record.paused) throw new SandboxNotRunning(id, 'paused');
    return record;
  }

  async saveRecord(record: SandboxRecord): Promise<void> {
    this.records.set(record.id, record);
    await writeSandboxRecord(this.paths(record.id).stateFile, record);
  }

  /** Forgets what was read from the sandbox's processes, once they are gone. */
  forgetProcesses(id: string): void {
    this.networkPids.delete(id);
    this.portReader.forget(id);
  }
}

/** Removes the sandbox's cgroup in every hierarchy; true when something was removed. */
export async function removeCgroups(cgroupsPath: string): Promise<boolean> {
  let removed = false;
  for (const dir of await cgroupDirs(cgroupsPath)) {
    removed =
      (await rmdir(dir).then(
        () => true,
        () => false,
      )) || removed;
  }
  return removed;
}
