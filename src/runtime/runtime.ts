// The one seam between Paddock and the isolation technology. Drivers (runc/, gvisor/) implement it;
// nothing outside src/runtime shells out to a runtime or touches a sandbox's filesystem directly.

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

export interface SandboxRuntime {
  readonly name: RuntimeName;
  /** One-time host preparation (bridge, nftables base rules, directories). Idempotent. */
  init(): Promise<void>;
  /** The host's address as sandboxes see it (the bridge), where deliberately exposed host ports listen; null when there is none. */
  hostAddress?(): string | null;
  create(spec: SandboxSpec): Promise<SandboxInfo>;
  exec(id: string, request: ExecRequest): Promise<ExecResult>;
  openPty(id: string, request: PtyRequest): Promise<PtyProcess>;
  pause(id: string): Promise<void>;
  resume(id: string): Promise<void>;
  listeningPorts(id: string): Promise<ListeningPort[]>;
  usage(id: string): Promise<SandboxUsage>;
  destroy(id: string): Promise<void>;
  /** After a restart: re-attach the known sandboxes, report the dead, clean everything else. */
  reconcile(knownIds: string[]): Promise<ReconcileResult>;
  /** Stops background work (DNS refresh); sandboxes keep running. */
  close?(): Promise<void>;
}
