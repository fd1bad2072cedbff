// runc: containers are host processes in namespaces; seccomp, capabilities and cgroups are the boundary.
import { spawn } from 'node:child_process';
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { killCgroupProcesses, setCgroupFrozen } from '../host/cgroups.js';
import { CommandFailed, run, runDetached } from '../host/command.js';
import { descendantPids, killPids } from '../host/process-tree.js';
import { hostInitBinary } from '../oci/bundle.js';
import type { ContainerStatus, ExecProcessSpec, OciDriver, PreparedExec } from '../oci/driver.js';
import { envFlags, RuntimeCli } from '../oci/runtime-cli.js';

const binary = 'runc';
const freezeAttempts = 5;

export class RuncDriver implements OciDriver {
  readonly name = 'runc' as const;
  readonly sizesMemoryAtStart = false;
  readonly usesSeccompProfile = true;
  readonly joinsNetnsFromConfig = true;
  readonly mountsCgroupfs = true;
  readonly needsRawHostTerminal = true;
  readonly cli: RuntimeCli;

  constructor(private readonly root: string) {
    this.cli = new RuntimeCli(binary, root);
  }

  async prepareHost(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await access(hostInitBinary).catch(() => {
      throw new Error(`${hostInitBinary} is missing; run scripts/install-system.sh`);
    });
  }

  async start(id: string, bundleDir: string): Promise<void> {
    await runDetached(binary, [...this.cli.globalArgs, 'run', '--detach', '--bundle', bundleDir, id], path.join(bundleDir, 'start.log'), 60_000);
  }

  prepareExec(id: string, _sandboxDir: string, process: ExecProcessSpec): PreparedExec {
    return {
      file: binary,
      args: [...this.cli.globalArgs, 'exec', ...(process.tty ? ['--tty'] : []), '--cwd', process.cwd, ...envFlags(process.env), id, ...process.args],
      // The exec'd process and its children are host processes below the `runc exec` process.
      killTree: async (runtimePid) => {
        if (runtimePid !== undefined) killPids(await descendantPids(runtimePid));
      },
      cleanup: async () => {},
    };
  }

  ownNetworkStack(): boolean {
    return false;
  }

  /** CRIU, which runc checkpoints with, does not work on this kernel (docs/runtime.md). */
  canCheckpoint(): boolean {
    return false;
  }

  /**
   * runc's pause is the cgroup freezer, and `runc state` reads the freezer to report `paused`: writing it
   * directly does what `runc pause` does without starting runc (~10 ms). Right after a create, runc's
   * init may still be exec'ing the sandbox's first process, and a freeze caught in that exec never
   * completes (cgroup v1 stays FREEZING; `runc pause` then retries forever): thaw, let it finish, try again.
   */
  async freeze(_id: string, cgroupsPath: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await setCgroupFrozen(cgroupsPath, true, 200);
        return;
      } catch (error) {
        await setCgroupFrozen(cgroupsPath, false).catch(() => {});
        if (attempt === freezeAttempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      }
    }
  }

  thaw(_id: string, cgroupsPath: string): Promise<void> {
    return setCgroupFrozen(cgroupsPath, false);
  }

  /**
   * The processes are killed through the cgroup, then the stopped container deleted: `runc delete --force`
   * sleeps 100 ms after its own kill before it looks again. Anything unexpected falls back to that.
   */
  async remove(id: string, cgroupsPath: string): Promise<void> {
    try {
      if (!(await killCgroupProcesses(cgroupsPath))) return this.cli.remove(id);
      await run(binary, [...this.cli.globalArgs, 'delete', id], { timeoutMs: 60_000 });
      return;
    } catch (error) {
      if (error instanceof CommandFailed && /does not exist/.test(error.stderr)) return;
    }
    await this.cli.remove(id);
  }

  async status(id: string): Promise<ContainerStatus | null> {
    return (await this.cli.state(id))?.status ?? null;
  }

  async networkPid(id: string): Promise<number> {
    const state = await this.cli.state(id);
    if (!state || state.pid <= 0) throw new Error(`sandbox ${id} has no running init process`);
    return state.pid;
  }
}

/** Whether runc is installed and answers; used to report problems early. */
export function runcAvailable(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(binary, ['--version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}
