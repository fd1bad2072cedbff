// One sandbox: its commands, processes, files, terminal, ports and snapshots, and its lifecycle.
// `await using sandbox = await Sandbox.create(…)` destroys it when the block ends.
import { Http, sleep, type ClientOptions } from '../core/http.js';
import { NotFoundError, PaddockError, TimeoutError } from '../core/errors.js';
import { Commands } from './commands.js';
import { Files } from './files.js';
import { Ports } from './ports.js';
import { Processes } from './processes.js';
import { Snapshots } from './snapshots.js';
import { Terminals } from './terminal.js';
import { segment, type CreateSandboxParams, type PauseResult, type SandboxCreatedInfo, type SandboxInfo } from './types.js';

export interface CreateOptions {
  /**
   * With set-up steps (repo, packages, agents, init_script) the sandbox is `creating` at first; by default
   * create waits until it is `running` (and throws when a step failed). False returns at once.
   */
  waitForSetup?: boolean;
  /** How long to wait for set-up; default 15 minutes. */
  setupTimeoutMs?: number;
}

const SETUP_POLL_MS = 500;

export class Sandbox {
  readonly id: string;
  /** As the server last described it: all fields after `connect` or `refresh()`, the creation answer's after `create`. */
  info: SandboxCreatedInfo & Partial<SandboxInfo>;
  readonly commands: Commands;
  readonly processes: Processes;
  readonly files: Files;
  readonly terminal: Terminals;
  readonly ports: Ports;
  readonly snapshots: Snapshots;

  constructor(
    private readonly http: Http,
    info: SandboxCreatedInfo & Partial<SandboxInfo>,
  ) {
    this.id = info.id;
    this.info = info;
    this.processes = new Processes(http, this.id);
    this.commands = new Commands(http, this.id, this.processes);
    this.files = new Files(http, this.id, this.commands);
    this.terminal = new Terminals(http, this.id);
    this.ports = new Ports(http, this.id);
    this.snapshots = new Snapshots(http, this.id);
  }

  /** Creates a sandbox with a client of its own (`apiKey`/`url`, else PADDOCK_API_KEY / PADDOCK_URL). */
  static create(params: CreateSandboxParams & ClientOptions & CreateOptions): Promise<Sandbox> {
    const { apiKey, url, maxRetries, timeoutMs, headers, fetch, waitForSetup, setupTimeoutMs, ...body } = params;
    return createSandbox(new Http({ apiKey, url, maxRetries, timeoutMs, headers, fetch }), body, { waitForSetup, setupTimeoutMs });
  }

  /** An existing sandbox, with a client of its own. */
  static connect(id: string, options: ClientOptions = {}): Promise<Sandbox> {
    return connectSandbox(new Http(options), id);
  }

  get status(): SandboxInfo['status'] {
    return this.info.status;
  }

  async refresh(): Promise<SandboxInfo> {
    const info = await this.http.request<SandboxInfo>('GET', `/v1/sandboxes/${segment(this.id)}`);
    this.info = info;
    return info;
  }

  /** Freezes every process (no CPU, no compute charge) and takes an automatic snapshot. */
  async pause(): Promise<PauseResult> {
    return this.lifecycle('pause');
  }

  /** Processes continue where they stopped. */
  async resume(): Promise<PauseResult> {
    return this.lifecycle('resume');
  }

  private async lifecycle(action: 'pause' | 'resume'): Promise<PauseResult> {
    const result = await this.http.request<PauseResult>('POST', `/v1/sandboxes/${segment(this.id)}/${action}`, { timeoutMs: 300_000 });
    this.info = { ...this.info, status: result.status as SandboxInfo['status'], paused_at: result.paused_at, last_activity_at: result.last_activity_at };
    return result;
  }

  /** Kills everything in it and removes its files; the record stays as `destroyed`. Idempotent. */
  async destroy(): Promise<void> {
    await this.http.request('DELETE', `/v1/sandboxes/${segment(this.id)}`, { timeoutMs: 300_000 });
    this.info = { ...this.info, status: 'destroyed' };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await this.destroy();
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
}

export async function createSandbox(http: Http, params: CreateSandboxParams, options: CreateOptions = {}): Promise<Sandbox> {
  const created = await http.request<SandboxCreatedInfo>('POST', '/v1/sandboxes', { body: params, timeoutMs: 600_000 });
  const sandbox = new Sandbox(http, created);
  if (created.status !== 'creating' || options.waitForSetup === false) return sandbox;
  const deadline = Date.now() + (options.setupTimeoutMs ?? 15 * 60_000);
  for (;;) {
    const info = await sandbox.refresh();
    if (info.status === 'running') return sandbox;
    if (info.status !== 'creating') throw new PaddockError({ status: 0, code: 'sandbox_setup_failed', message: `sandbox ${info.id} is ${info.status}: ${info.error ?? 'no reason given'}` });
    if (Date.now() > deadline) throw new TimeoutError(`sandbox ${info.id} was still creating after ${options.setupTimeoutMs ?? 15 * 60_000} ms`);
    await sleep(SETUP_POLL_MS);
  }
}

export async function connectSandbox(http: Http, id: string): Promise<Sandbox> {
  return new Sandbox(http, await http.request<SandboxInfo>('GET', `/v1/sandboxes/${segment(id)}`));
}
