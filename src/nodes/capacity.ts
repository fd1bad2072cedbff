// What a node measures about itself when it registers: cpus, memory, disk, how many sandboxes it takes,
// the templates built on it and the version it runs.
import fs from 'node:fs/promises';
import os from 'node:os';
import { templateStatus } from '../runtime/templates/index.js';

const MEMORY_PER_SANDBOX = 256 * 1024 ** 2;

export interface NodeCapacity {
  cpus: number;
  memory_bytes: number;
  disk_bytes: number;
  max_sandboxes: number;
}

/** `maxSandboxes` from PADDOCK_NODE_MAX_SANDBOXES; otherwise one sandbox per 256 MiB of memory. Disk: the size of the data directory's file system. */
export async function measureCapacity(dataDir: string, maxSandboxes: number | null): Promise<NodeCapacity> {
  const memory = os.totalmem();
  const disk = await fs.statfs(dataDir);
  return {
    cpus: os.cpus().length,
    memory_bytes: memory,
    disk_bytes: disk.blocks * disk.bsize,
    max_sandboxes: maxSandboxes ?? Math.max(1, Math.floor(memory / MEMORY_PER_SANDBOX)),
  };
}

/** Templates ready to create sandboxes from in `dataDir`; none on a node without a runtime. */
export async function builtTemplates(dataDir: string, hasRuntime: boolean): Promise<string[]> {
  if (!hasRuntime) return [];
  return (await templateStatus(dataDir)).filter((status) => status.ready).map((status) => status.name);
}

let version: string | null = null;

/** The version in package.json (the same file beside src/ and dist/). */
export async function paddockVersion(): Promise<string> {
  version ??= (JSON.parse(await fs.readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
