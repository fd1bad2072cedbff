// The one seam between Paddock and the isolation technology. Drivers (runc/, gvisor/) implement it;
// nothing outside src/runtime shells out to a runtime or touches a sandbox's filesystem directly.
import type { Logger } from '../core/logging.js';

export type RuntimeName = 'runc' | 'gvisor';
export type NetworkMode = 'full' | 'none' | 'allowlist';

export interface SandboxSpec {
  id: string;
  template: string;
  cpus: number;
  memoryMb: number;
  diskGb: number;
  networkMode: NetworkMode;
  allowlist: string[];
  env: Record<string, string>;
}

/** What a sandbox is made of apart from its id and env: what decides whether a pre-started one fits. */
export type SandboxShape = Omit<SandboxSpec, 'id' | 'env'>;

export interface WarmPoolOptions {
  /** Sandboxes to keep ready per template; templates that are not built are skipped. */
  targets: Record<string, number>;
  /** How pool sandboxes are started; a create fits when it asks for the same network and disk. */
  base: Omit<SandboxShape, 'template'>;
  /** The sandbox id generator of the service, so a claimed sandbox's id (and hostname) is like any other. */
  newId: () => string;
  log?: Pick<Logger, 'info' | 'warn'>;
}

export interface WarmPoolStatus {
  template: string;
  target: number;
  /** Ids of the sandboxes started and waiting to be claimed. */
  ready: string[];
  /** Creates answered from the pool since start. */
  claimed: number;
  /** Pool sandboxes started since start. */
  started: number;
}

export interface SandboxInfo {
  id: string;
  ip: string | null;
}

export interface ExecRequest {
  /** Run through `/bin/sh -c` inside the sandbox. */
  command: string;
  /** When set, run this program with these arguments directly (no shell, no quoting); `command` is then ignored. */
  argv?: string[];
  /** Merged over the sandbox env. */
  env?: Record<string, string>;
  /** Default `/workspace`. */
  cwd?: string;
  stdin?: Buffer;
  timeoutMs: number;
  /** Each of stdout and stderr is capped at this many bytes; the rest is dropped and `truncated` set. */
  maxOutputBytes: number;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  signal?: AbortSignal;
}

export interface ExecResult {
  exitCode: number;
  stdout: Buffer;
  stderr: Buffer;
  truncated: boolean;
  timedOut: boolean;
  durationMs: number;
}

export interface PtyRequest {
  cols: number;
  rows: number;
  env?: Record<string, string>;
  cwd?: string;
}

export interface PtyProcess {
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  onData(listener: (data: Buffer) => void): void;
  onExit(listener: (exitCode: number) => void): void;
  kill(): void;
}

export interface ListeningPort {
  port: number;
  address: string;
}

export interface SandboxUsage {
  cpuSeconds: number;
  memoryBytes: number;
  diskBytes: number;
}

export interface ReconcileResult {
  /** Sandboxes whose processes are alive and were re-attached. */
  alive: string[];
  /** Known sandboxes whose processes are gone. */
  dead: string[];
  /** Leftovers (mounts, netns, cgroups, layer dirs) of sandboxes not in the known list, removed. */
  cleaned: string[];
}

/** What the runtime sees of a sandbox right now; `stopped` means its processes are gone (crashed or killed). */
export type SandboxState = 'running' | 'paused' | 'stopped';

export interface FilesystemSnapshot {
  /** Size of the `.tar.gz` archive written. */
  sizeBytes: number;
  /** How long the sandbox was frozen for the copy (0 when it was paused already). */
  frozenMs: number;
}

export interface SandboxRuntime {
  readonly name: RuntimeName;
  /** One-time host preparation (bridge, nftables base rules, directories). Idempotent. */
  init(): Promise<void>;
  /** The host's address as sandboxes see it (the bridge), where deliberately exposed host ports listen; null when there is none. */
  hostAddress?(): string | null;
  create(spec: SandboxSpec): Promise<SandboxInfo>;
  exec(id: string, request: ExecRequest): Promise<ExecResult>;
  openPty(id: string, request: PtyRequest): Promise<PtyProcess>;
  /** Freezes every process (no CPU); memory stays as it is. Survives a server restart. */
  pause(id: string): Promise<void>;
  resume(id: string): Promise<void>;
  /**
   * Writes the sandbox's filesystem changes (relative to its template) to `archiveFile` as a `.tar.gz`.
   * A running sandbox is frozen only while its files are copied; a paused one stays paused.
   */
  snapshotFilesystem(id: string, archiveFile: string): Promise<FilesystemSnapshot>;
  /**
   * Replaces the sandbox's filesystem with the template plus the changes in `archiveFile`: every process
   * is stopped, the files are swapped, and the sandbox starts again (same id, network, address and env).
   */
  restoreFilesystem(id: string, archiveFile: string): Promise<void>;
  /** Cheap enough to call every few seconds per sandbox: whether its processes are still there. */
  state(id: string): Promise<SandboxState>;
  listeningPorts(id: string): Promise<ListeningPort[]>;
  /** The network namespace (a path) a process joins to reach the sandbox's ports the way it does; null when its network stack is its own. */
  networkNamespace(id: string): Promise<string | null>;
  usage(id: string): Promise<SandboxUsage>;
  destroy(id: string): Promise<void>;
  /** After a restart: re-attach the known sandboxes, report the dead, clean everything else. */
  reconcile(knownIds: string[]): Promise<ReconcileResult>;
  /**
   * Starts keeping pre-started sandboxes ready (call after `reconcile`: they are in no database and a
   * reconcile before would remove them). They belong to no one until `reserveWarm` hands one out.
   */
  startWarmPool?(options: WarmPoolOptions): void;
  /**
   * Takes a ready pre-started sandbox that `shape` fits out of the pool and returns its id; `create` with
   * that id then claims it (applying cpus, memory and env) instead of starting one. Null when none fits.
   */
  reserveWarm?(shape: SandboxShape): string | null;
  /** Hands back a reserved sandbox that will not be created after all (a plan limit said no). */
  releaseWarm?(id: string): void;
  warmPoolStatus?(): WarmPoolStatus[];
  /** Stops background work (DNS refresh) and destroys the warm pool's sandboxes; other sandboxes keep running. */
  close?(): Promise<void>;
}
