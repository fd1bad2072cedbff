// Runs build steps inside a template root filesystem: a private mount and PID namespace, /proc
// mounted inside, no service starts. Used only at build time, never for sandboxes.
import { writeFile, rm, copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../host/command.js';

const buildEnv: NodeJS.ProcessEnv = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  LANG: 'C.UTF-8',
  DEBIAN_FRONTEND: 'noninteractive',
};

/** Runs a fixed script (never user input) with /bin/sh inside `rootDir`. */
export async function runInChroot(rootDir: string, script: string): Promise<void> {
  const policyFile = path.join(rootDir, 'usr/sbin/policy-rc.d');
  await writeFile(policyFile, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  const resolvConf = path.join(rootDir, 'etc/resolv.conf');
  await rm(resolvConf, { force: true });
  await copyFile('/etc/resolv.conf', resolvConf);
  try {
    await run('unshare', ['--mount', '--pid', '--fork', '--kill-child', '--', 'chroot', rootDir, '/bin/sh', '-ec', `mount -t proc proc /proc\n${script}`], { env: buildEnv, timeoutMs: 30 * 60_000 });
  } finally {
    await rm(policyFile, { force: true });
  }
}

/** Removes apt's caches that only matter during a build (they would be copied into every layer). */
export const aptCleanupScript = 'apt-get clean\nrm -f /var/cache/apt/pkgcache.bin /var/cache/apt/srcpkgcache.bin';

export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}
