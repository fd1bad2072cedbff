// gVisor (runsc): the sandbox's system calls are served by gVisor's Sentry, not the host kernel.
// runsc is started inside the sandbox's network namespace with --network=host (its own netstack cannot
// start on this kernel), and with --overlay2=none so writes land in the sandbox's overlay upper dir.
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { run, runDetached } from '../host/command.js';
import { processAlive } from '../host/process-tree.js';
import { killCgroupProcesses, setCgroupFrozen } from '../host/cgroups.js';
import { RuntimeUnresponsive } from '../errors.js';
import type { ContainerStatus, ExecProcessSpec, OciDriver, PreparedExec } from '../oci/driver.js';
import type { NetworkMode } from '../runtime.js';
import { envFlags, RuntimeCli } from '../oci/runtime-cli.js';

const binary = 'runsc';

export class GvisorDriver implements OciDriver {
  readonly name = 'gvisor' as const;
  readonly sizesMemoryAtStart = true;
  readonly usesSeccompProfile = false;
  readonly joinsNetnsFromConfig = false;
  readonly mountsCgroupfs = false;
  readonly needsRawHostTerminal = false;
  readonly cli: RuntimeCli;

  constructor(private readonly root: string) {
    this.cli = new RuntimeCli(binary, root);
  }

  async prepareHost(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
  }

  async start(id: string, bundleDir: string, netnsPath: string, networkMode: NetworkMode): Promise<void> {
    await runDetached('nsenter', [...this.runArgs(netnsPath, networkMode), 'run', '--detach', '--bundle', bundleDir, id], path.join(bundleDir, 'start.log'), 60_000);
  }

  /**
   * nsenter changes only the network namespace; `ip netns exec` would also remount /sys and break cgroups.
   * --host-uds=open lets the agent connect to the host's socket in its bind mount; the sandbox cannot create host sockets.
   * A `none` sandbox gets gVisor's own loopback-only netstack (--network=none) instead of the namespace's
   * devices: `runsc checkpoint` refuses host networking, and `none` needs nothing from the namespace.
   */
  private runArgs(netnsPath: string, networkMode: NetworkMode): string[] {
    return [`--net=${netnsPath}`, '--', binary, ...this.cli.globalArgs, networkMode === 'none' ? '--network=none' : '--network=host', '--overlay2=none', '--host-uds=open'];
  }

  ownNetworkStack(networkMode: NetworkMode): boolean {
    return networkMode === 'none';
  }

  canCheckpoint(networkMode: NetworkMode): boolean {
    return this.ownNetworkStack(networkMode);
  }

  /**
   * Writes the sandbox's memory and state to `imageDir`; the sandbox exits. Saving also writes back any
   * file data the Sentry still holds (runsc's save path), so the host files are complete without a `sync`.
   * The stopped container stays known to runsc until removed: its process lingers as a zombie until the
   * host's init reaps it, and `runsc delete` waits for that.
   */
  async checkpoint(id: string, imageDir: string): Promise<void> {
    await rm(imageDir, { recursive: true, force: true });
    await mkdir(imageDir, { recursive: true, mode: 0o700 });
    // Uncompressed: a sandbox's image is mostly a few MB, and compressing it made the pause ~20% slower.
    await run(binary, [...this.cli.globalArgs, 'checkpoint', '--compression=none', '--image-path', imageDir, id], { timeoutMs: 120_000 });
  }

  async restore(id: string, bundleDir: string, netnsPath: string, networkMode: NetworkMode, imageDir: string): Promise<void> {
    await runDetached('nsenter', [...this.runArgs(netnsPath, networkMode), 'restore', '--detach', '--image-path', imageDir, '--bundle', bundleDir, id], path.join(bundleDir, 'restore.log'), 120_000);
    await rm(imageDir, { recursive: true, force: true });
  }

  prepareExec(id: string, sandboxDir: string, process: ExecProcessSpec): PreparedExec {
    const pidFile = path.join(sandboxDir, `exec-${randomUUID()}.pid`);
    return {
      file: binary,
      args: [...this.cli.globalArgs, 'exec', '--cwd', process.cwd, ...envFlags(process.env), '--internal-pid-file', pidFile, id, ...process.args],
      killTree: async () => {
        const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
        if (pid > 0) await this.killInsideTree(id, pid);
      },
      cleanup: () => rm(pidFile, { force: true }),
    };
  }

  /** Processes inside gVisor are not host processes: find the tree with `runsc ps` and kill it with `runsc kill --pid`. */
  private async killInsideTree(id: string, rootPid: number): Promise<void> {
    const { stdout } = await run(binary, [...this.cli.globalArgs, 'ps', id]);
    // Table output (`--format json` lists only pids): UID PID PPID C TTY STIME TIME CMD.
    const processes = stdout
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields.length >= 3)
      .map((fields) => ({ PID: Number(fields[1]), PPID: Number(fields[2]) }));
    const doomed = [rootPid];
    for (let index = 0; index < doomed.length; index++) {
      for (const candidate of processes) if (candidate.PPID === doomed[index]) doomed.push(candidate.PID);
    }
    const kill = (pid: number): Promise<unknown> => run(binary, [...this.cli.globalArgs, 'kill', '--pid', String(pid), id, 'KILL']).catch(() => {});
    // The exec'd process first: were a child killed first, the parent could run on for a moment.
    await kill(rootPid);
    await Promise.all(doomed.slice(1).map(kill));
  }

  /**
   * `runsc pause` stops the Sentry's tasks, but the sandbox process (Go runtime, gofer I/O) still wakes up;
   * the cgroup freezer on top stops it completely, so a paused gVisor sandbox uses no host CPU at all.
   * Used where a memory checkpoint is not possible (host networking, a command running): docs/runtime.md.
   */
  async freeze(id: string, cgroupsPath: string): Promise<void> {
    await this.cli.pause(id);
    await setCgroupFrozen(cgroupsPath, true);
  }

  async thaw(id: string, cgroupsPath: string): Promise<void> {
    await setCgroupFrozen(cgroupsPath, false);
    await this.cli.resume(id);
  }

  /**
   * `runsc state` and `delete` ask the sandbox over its control channel, which code inside can wedge (thousands
   * of connections to a host socket): then they never answer. Past their deadline the Sentry and the gofer,
   * both in the sandbox's cgroup, are killed there, and the delete of a dead sandbox goes through.
   */
  async remove(id: string, cgroupsPath: string): Promise<void> {
    try {
      await this.cli.remove(id);
    } catch (error) {
      if (!(error instanceof RuntimeUnresponsive)) throw error;
      await killCgroupProcesses(cgroupsPath);
      await this.cli.remove(id);
    }
  }

  async status(id: string): Promise<ContainerStatus | null> {
    const state = await this.cli.state(id);
    if (!state) return null;
    // runsc keeps reporting "running" after its sandbox process died (for example killed by the host OOM killer).
    if ((state.status === 'running' || state.status === 'paused') && !(await processAlive(state.pid))) return 'stopped';
    return state.status;
  }

  async networkPid(id: string): Promise<number> {
    const state = await this.cli.state(id);
    if (!state || state.pid <= 0) throw new Error(`sandbox ${id} has no running sandbox process`);
    return state.pid;
  }
}
