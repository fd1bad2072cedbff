// What differs between OCI runtimes (runc, runsc); everything else lives in the shared OciSandboxRuntime.
import type { NetworkMode, RuntimeName } from '../runtime.js';
import type { ContainerStatus, RuntimeCli } from './runtime-cli.js';

export type { ContainerStatus };

export interface ExecProcessSpec {
  args: string[];
  env: string[];
  cwd: string;
  tty: boolean;
}

export interface PreparedExec {
  file: string;
  args: string[];
  /** Kills the exec'd process and everything it started inside the sandbox; `runtimePid` is the host pid of `file`. */
  killTree(runtimePid: number | undefined): Promise<void>;
  /** Releases per-exec host files. */
  cleanup(): Promise<void>;
}

export interface OciDriver {
  readonly name: RuntimeName;
  /** runc needs the host seccomp profile; gVisor's Sentry is the system call boundary itself. */
  readonly usesSeccompProfile: boolean;
  /** runc joins the netns from config.json; runsc is started inside it and uses its host network there. */
  readonly joinsNetnsFromConfig: boolean;
  /**
   * runc shows the sandbox its own host cgroups at /sys/fs/cgroup, read-only. runsc would mount the Sentry's
   * emulated cgroupfs read-write whatever the options say, reporting no limit at all, so gVisor gets none.
   */
  readonly mountsCgroupfs: boolean;
  /**
   * runc copies the sandbox's console to the host terminal byte for byte but makes that terminal raw only
   * once it is copying, so output racing it gets "\r\r\n"; runsc's console relies on the host terminal's
   * output processing (it sends bare "\n") and sets the modes itself.
   */
  readonly needsRawHostTerminal: boolean;
  prepareHost(): Promise<void>;
  start(id: string, bundleDir: string, netnsPath: string, networkMode: NetworkMode): Promise<void>;
  /**
   * Saves the whole sandbox (memory included) to `imageDir` and stops it, freeing its memory; `restore`
   * starts it again from there once the stopped container is removed (`cli.remove`). Only drivers and
   * sandboxes for which `canCheckpoint` says so.
   */
  canCheckpoint(networkMode: NetworkMode): boolean;
  /** The sandbox's sockets live in the runtime's own network stack, invisible in the host's /proc. */
  ownNetworkStack(networkMode: NetworkMode): boolean;
  /** gVisor's Sentry sizes its memory (MemTotal inside) from the limit at start; a later limit change is not seen inside. */
  readonly sizesMemoryAtStart: boolean;
  checkpoint?(id: string, imageDir: string): Promise<void>;
  restore?(id: string, bundleDir: string, netnsPath: string, networkMode: NetworkMode, imageDir: string): Promise<void>;
  prepareExec(id: string, sandboxDir: string, process: ExecProcessSpec): PreparedExec;
  /** Kills and deletes the container and its runtime state; idempotent. */
  remove(id: string, cgroupsPath: string): Promise<void>;
  /** pause, resume, remove, list: the same command line for both runtimes. */
  readonly cli: RuntimeCli;
  status(id: string): Promise<ContainerStatus | null>;
  /** Stops every process of the sandbox from running (no CPU) with its memory kept; `thaw` undoes it. */
  freeze(id: string, cgroupsPath: string): Promise<void>;
  thaw(id: string, cgroupsPath: string): Promise<void>;
  /** A host process inside the sandbox's network namespace (its /proc/<pid>/net shows the sandbox's sockets). */
  networkPid(id: string): Promise<number>;
}
