// What the runtime remembers about a sandbox between calls and across restarts (sandbox.json in its dir).
import { renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { NetworkMode, RuntimeName } from '../runtime.js';

export interface SandboxRecord {
  id: string;
  runtime: RuntimeName;
  template: string;
  env: Record<string, string>;
  networkMode: NetworkMode;
  netnsPath: string;
  ip: string | null;
  cgroupsPath: string;
  paused: boolean;
  /** Paused by a memory checkpoint (gVisor): no process exists until the checkpoint is restored. */
  checkpointed?: boolean;
  /** Started with paddock-agent as its main process (sandboxes created before it existed were not). */
  agent?: boolean;
  createdAt: string;
}

/**
 * Written synchronously: a few hundred bytes take microseconds, while two trips through libuv's thread pool
 * cost milliseconds on a busy host, and every pause and resume waits for this write.
 */
export async function writeSandboxRecord(file: string, record: SandboxRecord): Promise<void> {
  writeFileSync(`${file}.tmp`, JSON.stringify(record), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

export async function readSandboxRecord(file: string): Promise<SandboxRecord | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as SandboxRecord;
  } catch {
    return null;
  }
}

export const sandboxCgroupParent = '/paddock';

export function sandboxCgroupsPath(id: string): string {
  return `${sandboxCgroupParent}/${id}`;
}
