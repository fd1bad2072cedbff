// Builds the OCI runtime config (config.json) both drivers start a sandbox from.
import { hostAgentBinary, sandboxAgentPath } from '../agent/binary.js';
import { agentSocketName, sandboxAgentDir } from '../agent/endpoint.js';
import { canLimitSwap } from '../host/cgroups.js';
import { defaultSeccompProfile, type SeccompProfile } from './seccomp.js';

/** Host binary bind-mounted read-only as the sandbox's PID 1: it reaps orphans so exec'd processes never linger as zombies. */
export const hostInitBinary = '/usr/bin/tini-static';
export const sandboxInitPath = '/.paddock/init';
export const defaultPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
export const defaultPidsLimit = 1024;

export interface BundleOptions {
  id: string;
  rootfs: string;
  env: Record<string, string>;
  cpus: number;
  memoryMb: number;
  pidsLimit: number;
  cgroupsPath: string;
  /** Host directory of the agent's socket, bind-mounted read-only at /.paddock/run. */
  agentDir: string;
  /** Join this network namespace (runc); null when the runtime is already started inside it (runsc). */
  netnsPath: string | null;
  seccomp: boolean;
  /** Whether /sys/fs/cgroup shows the sandbox's cgroups (read-only) or stays an empty read-only directory. */
  cgroupfs: boolean;
}

// The capabilities containerd and Docker grant by default; everything else (SYS_ADMIN, SYS_MODULE, NET_ADMIN …) is dropped.
const capabilities = [
  'CAP_CHOWN',
  'CAP_DAC_OVERRIDE',
  'CAP_FSETID',
  'CAP_FOWNER',
  'CAP_MKNOD',
  'CAP_NET_RAW',
  'CAP_SETGID',
  'CAP_SETUID',
  'CAP_SETFCAP',
  'CAP_SETPCAP',
  'CAP_NET_BIND_SERVICE',
  'CAP_SYS_CHROOT',
  'CAP_KILL',
  'CAP_AUDIT_WRITE',
];

const maskedPaths = [
  '/proc/acpi',
  '/proc/asound',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
];

const cgroupfsMount = { destination: '/sys/fs/cgroup', type: 'cgroup', source: 'cgroup', options: ['nosuid', 'noexec', 'nodev', 'relatime', 'ro'] };

// runc (1.1, cgroup v1) mounts the controllers under /sys/fs/cgroup read-only but leaves the tmpfs holding
// them writable, whatever the mount's options say; listing it here remounts that tmpfs read-only too.
const readonlyPaths = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger', '/sys/fs/cgroup'];

/** Environment of every process in the sandbox: defaults, then the sandbox env, then per-process extras. */
export function sandboxEnvironment(id: string, ...layers: (Record<string, string> | undefined)[]): string[] {
  const merged: Record<string, string> = { PATH: defaultPath, HOME: '/root', HOSTNAME: id, LANG: 'C.UTF-8' };
  for (const layer of layers) Object.assign(merged, layer ?? {});
  return Object.entries(merged).map(([key, value]) => `${key}=${value}`);
}

export function extraEnvironment(env: Record<string, string> | undefined): string[] {
  return Object.entries(env ?? {}).map(([key, value]) => `${key}=${value}`);
}

export interface OciConfig {
  ociVersion: string;
  process: Record<string, unknown>;
  root: { path: string; readonly: boolean };
  hostname: string;
  mounts: Record<string, unknown>[];
  linux: Record<string, unknown> & { seccomp?: SeccompProfile };
}

export async function buildOciConfig(options: BundleOptions): Promise<OciConfig> {
  const memoryBytes = options.memoryMb * 1024 * 1024;
  const cpuPeriod = 100_000;
  const namespaces: Record<string, string>[] = [{ type: 'pid' }, { type: 'ipc' }, { type: 'uts' }, { type: 'mount' }];
  if (options.netnsPath) namespaces.push({ type: 'network', path: options.netnsPath });
  const config: OciConfig = {
    ociVersion: '1.0.2',
    process: {
      terminal: false,
      user: { uid: 0, gid: 0 },
      // tini reaps orphans; its child, the agent, runs the commands the host sends (see agent/paddock-agent.c).
      args: [sandboxInitPath, '--', sandboxAgentPath, `${sandboxAgentDir}/${agentSocketName}`],
      env: sandboxEnvironment(options.id, options.env),
      cwd: '/workspace',
      capabilities: { bounding: capabilities, effective: capabilities, permitted: capabilities },
      noNewPrivileges: true,
      oomScoreAdj: 500,
    },
    root: { path: options.rootfs, readonly: false },
    hostname: options.id,
    mounts: [
      { destination: '/proc', type: 'proc', source: 'proc' },
      { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'] },
      { destination: '/dev/pts', type: 'devpts', source: 'devpts', options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'] },
      { destination: '/dev/shm', type: 'tmpfs', source: 'shm', options: ['nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k'] },
      { destination: '/dev/mqueue', type: 'mqueue', source: 'mqueue', options: ['nosuid', 'noexec', 'nodev'] },
      { destination: '/sys', type: 'sysfs', source: 'sysfs', options: ['nosuid', 'noexec', 'nodev', 'ro'] },
      ...(options.cgroupfs ? [cgroupfsMount] : []),
      { destination: sandboxInitPath, type: 'bind', source: hostInitBinary, options: ['rbind', 'ro', 'nosuid', 'nodev'] },
      { destination: sandboxAgentPath, type: 'bind', source: hostAgentBinary, options: ['rbind', 'ro', 'nosuid', 'nodev'] },
      { destination: sandboxAgentDir, type: 'bind', source: options.agentDir, options: ['rbind', 'ro', 'nosuid', 'nodev', 'noexec'] },
    ],
    linux: {
      namespaces,
      cgroupsPath: options.cgroupsPath,
      resources: {
        devices: [{ allow: false, access: 'rwm' }],
        memory: { limit: memoryBytes, ...((await canLimitSwap()) ? { swap: memoryBytes } : {}) },
        cpu: { quota: Math.round(options.cpus * cpuPeriod), period: cpuPeriod },
        pids: { limit: options.pidsLimit },
      },
      maskedPaths,
      readonlyPaths,
    },
  };
  if (options.seccomp) config.linux.seccomp = defaultSeccompProfile();
  return config;
}
