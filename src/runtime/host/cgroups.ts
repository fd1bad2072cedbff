// Reads a sandbox's cgroup, on cgroup v1 (including hybrid hosts) and on the unified v2 hierarchy.
import { readFileSync, writeFileSync } from 'node:fs';
import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const cgroupRoot = '/sys/fs/cgroup';

export type CgroupVersion = 1 | 2;

let detectedVersion: CgroupVersion | null = null;

export async function cgroupVersion(): Promise<CgroupVersion> {
  if (detectedVersion === null) {
    detectedVersion = (await exists(path.join(cgroupRoot, 'cgroup.controllers'))) ? 2 : 1;
  }
  return detectedVersion;
}

/** Whether the memory limit can also cover swap (v1 needs swap accounting; v2 always can). */
export async function canLimitSwap(): Promise<boolean> {
  if ((await cgroupVersion()) === 2) return true;
  return exists(path.join(cgroupRoot, 'memory', 'memory.memsw.limit_in_bytes'));
}

export interface CgroupUsage {
  cpuSeconds: number;
  memoryBytes: number;
}

/** `cgroupsPath` is the OCI `linux.cgroupsPath` the sandbox was started with (for example /paddock/<id>). */
export async function readCgroupUsage(cgroupsPath: string): Promise<CgroupUsage> {
  if ((await cgroupVersion()) === 2) {
    const dir = path.join(cgroupRoot, cgroupsPath);
    const cpuStat = await readFile(path.join(dir, 'cpu.stat'), 'utf8');
    const usageMicros = Number(/usage_usec (\d+)/.exec(cpuStat)?.[1] ?? 0);
    const memoryBytes = Number((await readFile(path.join(dir, 'memory.current'), 'utf8')).trim());
    return { cpuSeconds: usageMicros / 1e6, memoryBytes };
  }
  const cpuNanos = Number((await readFile(path.join(cgroupRoot, 'cpuacct', cgroupsPath, 'cpuacct.usage'), 'utf8')).trim());
  const memoryBytes = Number((await readFile(path.join(cgroupRoot, 'memory', cgroupsPath, 'memory.usage_in_bytes'), 'utf8')).trim());
  return { cpuSeconds: cpuNanos / 1e9, memoryBytes };
}

/** Cgroup directories a sandbox may leave behind, for clean-up after a crash. */
export async function cgroupDirs(cgroupsPath: string): Promise<string[]> {
  if ((await cgroupVersion()) === 2) return [path.join(cgroupRoot, cgroupsPath)];
  const controllers = ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'freezer', 'blkio', 'devices', 'net_cls', 'net_prio', 'perf_event', 'hugetlb', 'systemd', 'rdma', 'misc'];
  return controllers.map((controller) => path.join(cgroupRoot, controller, cgroupsPath));
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** Names of the child cgroups under `parentPath` (for example the sandboxes under /paddock). */
export async function cgroupChildren(parentPath: string): Promise<string[]> {
  const dir = (await cgroupVersion()) === 2 ? path.join(cgroupRoot, parentPath) : path.join(cgroupRoot, 'memory', parentPath);
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * Freezes or thaws every process of a cgroup (v1 freezer, v2 cgroup.freeze) and waits until the kernel says so.
 * The control files are read and written synchronously: the kernel answers in microseconds, while a trip
 * through libuv's thread pool costs milliseconds on a busy host, and pause and resume wait on it.
 * Throws when that takes longer than about `timeoutMs`.
 */
export async function setCgroupFrozen(cgroupsPath: string, frozen: boolean, timeoutMs = 1000): Promise<void> {
  const v2 = (await cgroupVersion()) === 2;
  const file = v2 ? path.join(cgroupRoot, cgroupsPath, 'cgroup.freeze') : path.join(cgroupRoot, 'freezer', cgroupsPath, 'freezer.state');
  writeFileSync(file, v2 ? (frozen ? '1' : '0') : frozen ? 'FROZEN' : 'THAWED');
  // v1 reports FREEZING until every task has stopped; v2 reports `frozen 1` in cgroup.events.
  for (let attempt = 0; attempt <= timeoutMs / 2; attempt++) {
    const state = v2 ? /frozen (\d)/.exec(readFileSync(path.join(cgroupRoot, cgroupsPath, 'cgroup.events'), 'utf8'))?.[1] === '1' : readFileSync(file, 'utf8').trim() === 'FROZEN';
    if (state === frozen) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`cgroup ${cgroupsPath} did not become ${frozen ? 'frozen' : 'thawed'}`);
}

/**
 * SIGKILLs every process in the cgroup and waits until none is left; false when the cgroup does not exist.
 * Killing a PID namespace's init takes the rest with it; the loop also catches anything forked meanwhile.
 */
export async function killCgroupProcesses(cgroupsPath: string, timeoutMs = 5000): Promise<boolean> {
  const procsFile = (await cgroupVersion()) === 2 ? path.join(cgroupRoot, cgroupsPath, 'cgroup.procs') : path.join(cgroupRoot, 'pids', cgroupsPath, 'cgroup.procs');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let pids: number[];
    try {
      pids = (await readFile(procsFile, 'utf8')).split('\n').filter(Boolean).map(Number);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    if (pids.length === 0) return true;
    if (Date.now() > deadline) throw new Error(`processes of ${cgroupsPath} still running after SIGKILL: ${pids.slice(0, 5).join(', ')}`);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

export interface CgroupLimits {
  cpus: number;
  memoryBytes: number;
  /** Cap memory + swap at the memory limit too (no swap), as config.json does where the host allows it. */
  noSwap: boolean;
}

const cpuPeriodMicros = 100_000;

/**
 * Changes a running sandbox's cpu and memory limits in place (what config.json set at start). On v1 the
 * memory limit may never exceed memory + swap, so the two are written in the order that keeps it so.
 */
export async function setCgroupLimits(cgroupsPath: string, limits: CgroupLimits): Promise<void> {
  const quota = Math.round(limits.cpus * cpuPeriodMicros);
  if ((await cgroupVersion()) === 2) {
    const dir = path.join(cgroupRoot, cgroupsPath);
    await writeFile(path.join(dir, 'cpu.max'), `${quota} ${cpuPeriodMicros}`);
    await writeFile(path.join(dir, 'memory.max'), String(limits.memoryBytes));
    if (limits.noSwap) await writeFile(path.join(dir, 'memory.swap.max'), '0');
    return;
  }
  await writeFile(path.join(cgroupRoot, 'cpu', cgroupsPath, 'cpu.cfs_period_us'), String(cpuPeriodMicros));
  await writeFile(path.join(cgroupRoot, 'cpu', cgroupsPath, 'cpu.cfs_quota_us'), String(quota));
  const memoryDir = path.join(cgroupRoot, 'memory', cgroupsPath);
  const memory = path.join(memoryDir, 'memory.limit_in_bytes');
  const withSwap = path.join(memoryDir, 'memory.memsw.limit_in_bytes');
  const value = String(limits.memoryBytes);
  if (!limits.noSwap) {
    await writeFile(memory, value);
    return;
  }
  const current = Number((await readFile(memory, 'utf8')).trim());
  if (limits.memoryBytes > current) {
    await writeFile(withSwap, value);
    await writeFile(memory, value);
  } else {
    await writeFile(memory, value);
    await writeFile(withSwap, value);
  }
}
