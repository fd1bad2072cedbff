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
