// Shared parsing of the runc/runsc CLI answers (both follow the OCI runtime command line).
import { run } from '../host/command.js';
import type { ContainerStatus } from './driver.js';

export interface ContainerState {
  status: ContainerStatus;
  pid: number;
}

/** `<runtime> --root R state ID`; null when the runtime does not know the container. */
export async function containerState(binary: string, globalArgs: string[], id: string): Promise<ContainerState | null> {
  try {
    const { stdout } = await run(binary, [...globalArgs, 'state', id]);
    const state = JSON.parse(stdout) as { status: ContainerStatus; pid: number };
    return { status: state.status, pid: state.pid };
  } catch {
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
    await run(this.binary, [...this.globalArgs, 'delete', '--force', id], { timeoutMs: 60_000, niceness });
  }
}
