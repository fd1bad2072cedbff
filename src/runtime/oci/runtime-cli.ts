// Shared parsing of the runc/runsc CLI answers (both follow the OCI runtime command line).
import { CommandFailed, run } from '../host/command.js';
import { RuntimeUnresponsive } from '../errors.js';

/** `state` reads a file (runc) or asks the sandbox (runsc): milliseconds unless something is wrong. */
const STATE_TIMEOUT_MS = 10_000;
const DELETE_TIMEOUT_MS = 60_000;

/** A container's status as the OCI runtime's `state` reports it. */
export type ContainerStatus = 'created' | 'running' | 'paused' | 'stopped';

export interface ContainerState {
  status: ContainerStatus;
  pid: number;
}

/** `<runtime> --root R state ID`; null when the runtime does not know the container, RuntimeUnresponsive when it does not answer. */
export async function containerState(binary: string, globalArgs: string[], id: string): Promise<ContainerState | null> {
  try {
    const { stdout } = await run(binary, [...globalArgs, 'state', id], { timeoutMs: STATE_TIMEOUT_MS });
    const state = JSON.parse(stdout) as { status: ContainerStatus; pid: number };
    return { status: state.status, pid: state.pid };
  } catch (error) {
    if (error instanceof CommandFailed && error.timedOut) throw new RuntimeUnresponsive(id, 'state');
    return null;
  }
}

export async function listContainerIds(binary: string, globalArgs: string[]): Promise<string[]> {
  try {
    const { stdout } = await run(binary, [...globalArgs, 'list', '--format', 'json']);
    const entries = JSON.parse(stdout || 'null') as { id: string }[] | null;
    return (entries ?? []).map((entry) => entry.id);
  } catch {
    return [];
  }
}

export function envFlags(env: string[]): string[] {
  return env.flatMap((entry) => ['--env', entry]);
}

/** The OCI runtime command line both runc and runsc speak, bound to one binary and state root. */
export class RuntimeCli {
  readonly globalArgs: string[];

  constructor(
    readonly binary: string,
    root: string,
  ) {
    this.globalArgs = ['--root', root];
  }

  state(id: string): Promise<ContainerState | null> {
    return containerState(this.binary, this.globalArgs, id);
  }

  list(): Promise<string[]> {
    return listContainerIds(this.binary, this.globalArgs);
  }

  async pause(id: string): Promise<void> {
    await run(this.binary, [...this.globalArgs, 'pause', id]);
  }

  async resume(id: string): Promise<void> {
    await run(this.binary, [...this.globalArgs, 'resume', id]);
  }

  /** Kills and deletes the container and its runtime state; idempotent. `niceness` for removals nothing waits on. */
  async remove(id: string, niceness?: number): Promise<void> {
    const state = await this.state(id);
    if (!state) return;
    if (state.status === 'paused') await this.resume(id).catch(() => {});
    try {
      await run(this.binary, [...this.globalArgs, 'delete', '--force', id], { timeoutMs: DELETE_TIMEOUT_MS, niceness });
    } catch (error) {
      if (error instanceof CommandFailed && error.timedOut) throw new RuntimeUnresponsive(id, 'delete');
      throw error;
    }
  }
}
