// `paddock doctor`: checks every system dependency, says what is missing and the command that fixes it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import type { Config } from '../config.js';
import { hostInitBinary } from '../runtime/oci/bundle.js';
import { nodeSupport } from './node-support.js';

const run = promisify(execFile);

export interface CheckResult {
  name: string;
  required: boolean;
  ok: boolean;
  detail: string;
  fix?: string;
}

type Check = () => Promise<CheckResult>;

const INSTALL_ALL = 'bash scripts/install-system.sh';

async function firstLine(command: string, args: string[]): Promise<string | null> {
  try {
    const { stdout, stderr } = await run(command, args, { timeout: 10_000 });
    return (stdout || stderr).trim().split('\n')[0] ?? '';
  } catch {
    return null;
  }
}

function binary(name: string, command: string, args: string[], pkg: string, required: boolean, purpose: string): Check {
  return async () => {
    const version = await firstLine(command, args);
    return version !== null ? { name, required, ok: true, detail: version } : { name, required, ok: false, detail: `${command} not found (${purpose})`, fix: `apt-get install -y ${pkg}` };
  };
}

/** runsc builds older than mid-2024 fail on this kernel and on current userlands (see docs/runtime.md). */
const MIN_RUNSC_DATE = 20240101;

const checkRunsc: Check = async () => {
  const version = await firstLine('runsc', ['--version']);
  if (version === null) return { name: 'runsc (gVisor)', required: false, ok: false, detail: 'not installed; sandboxes fall back to runc', fix: INSTALL_ALL };
  const date = Number(/(20\d{6})/.exec(version)?.[1] ?? 0);
  if (date < MIN_RUNSC_DATE) {
    return { name: 'runsc (gVisor)', required: false, ok: false, detail: `${version} is too old (need a ${MIN_RUNSC_DATE} or newer build)`, fix: INSTALL_ALL };
  }
  return { name: 'runsc (gVisor)', required: false, ok: true, detail: version };
};

const checkInit: Check = async () => {
  const ok = fs.existsSync(hostInitBinary);
  return { name: 'tini', required: true, ok, detail: ok ? hostInitBinary : `${hostInitBinary} missing (the init process of every sandbox)`, fix: ok ? undefined : 'apt-get install -y tini' };
};

const checkOverlay: Check = async () => {
  const ok = fs.readFileSync('/proc/filesystems', 'utf8').includes('overlay');
  return { name: 'overlayfs', required: true, ok, detail: ok ? 'supported by the kernel' : 'not in /proc/filesystems', fix: ok ? undefined : 'modprobe overlay' };
};

const checkCgroups: Check = async () => {
  const name = 'cgroups';
  if (fs.existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    const controllers = fs.readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').trim().split(/\s+/);
    const missing = ['cpu', 'memory', 'pids'].filter((c) => !controllers.includes(c));
    return missing.length
      ? { name, required: true, ok: false, detail: `cgroup v2 without ${missing.join(', ')}`, fix: 'enable the controllers in /sys/fs/cgroup/cgroup.subtree_control' }
      : { name, required: true, ok: true, detail: `v2 (${controllers.join(' ')})` };
  }
  const missing = ['cpu', 'memory', 'pids', 'freezer'].filter((c) => !fs.existsSync(`/sys/fs/cgroup/${c}`));
  return missing.length
    ? { name, required: true, ok: false, detail: `cgroup v1 without ${missing.join(', ')}`, fix: 'mount the missing cgroup v1 controllers under /sys/fs/cgroup' }
    : { name, required: true, ok: true, detail: 'v1 (cpu, memory, pids, freezer)' };
};

const checkRoot: Check = async () => {
  const ok = process.getuid?.() === 0;
  return { name: 'root', required: true, ok, detail: ok ? 'running as root' : 'sandboxes need root (namespaces, cgroups, mounts)', fix: ok ? undefined : 'run paddock as root' };
};

const checkNode: Check = async () => ({ name: 'node', required: true, ...nodeSupport(process.versions.node) });

function checkPostgres(databaseUrl: string): Check {
  return async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      const { rows } = await client.query<{ version: string }>('select version()');
      return { name: 'PostgreSQL (DATABASE_URL)', required: true, ok: true, detail: rows[0].version.split(' on ')[0] };
    } catch (error) {
      return {
        name: 'PostgreSQL (DATABASE_URL)',
        required: true,
        ok: false,
        detail: `cannot connect: ${(error as Error).message}`,
        fix: 'apt-get install -y postgresql && pg_ctlcluster 15 main start, then check DATABASE_URL',
      };
    } finally {
      await client.end().catch(() => {});
    }
  };
}

export function checksFor(config: Config): Check[] {
  const checks: Check[] = [
    checkNode,
    checkRoot,
    binary('runc', 'runc', ['--version'], 'runc', true, 'the OCI runtime for sandboxes'),
    checkRunsc,
    binary('nftables', 'nft', ['--version'], 'nftables', true, 'sandbox network isolation'),
    binary('iproute2', 'ip', ['-V'], 'iproute2', true, 'sandbox network namespaces'),
    binary('debootstrap', 'debootstrap', ['--version'], 'debootstrap', true, 'building template root filesystems'),
    binary('mkfs.ext4', 'mkfs.ext4', ['-V'], 'e2fsprogs', true, 'per-sandbox disk quotas'),
    binary('umoci', 'umoci', ['--version'], 'umoci', false, 'importing OCI image templates'),
    binary('skopeo', 'skopeo', ['--version'], 'skopeo', false, 'importing OCI image templates'),
    binary('git', 'git', ['--version'], 'git', true, 'repository diffs and clones'),
    checkInit,
    checkOverlay,
    checkCgroups,
  ];
  if (config.databaseUrl) checks.push(checkPostgres(config.databaseUrl));
  return checks;
}

export async function doctor(config: Config): Promise<number> {
  const results = await Promise.all(checksFor(config).map((check) => check()));
  for (const r of results) {
    const status = r.ok ? 'OK     ' : r.required ? 'MISSING' : 'WARN   ';
    process.stdout.write(`${status} ${r.name}: ${r.detail}${r.fix && !r.ok ? `\n        fix: ${r.fix}` : ''}\n`);
  }
  const failed = results.filter((r) => r.required && !r.ok);
  process.stdout.write(failed.length ? `\n${failed.length} required dependency missing\n` : '\nall required dependencies present\n');
  return failed.length ? 1 : 0;
}
