// Conformance: what hostile code inside a sandbox must not be able to do, for every driver.
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cgroupVersion } from '../../src/runtime/host/cgroups.js';
import { sandboxCgroupsPath } from '../../src/runtime/oci/sandbox-record.js';
import type { RuntimeName, SandboxRuntime } from '../../src/runtime/runtime.js';
import { shell, testRuntime, testSpec } from '../helpers/runtime-environment.js';
import { ensureTestTemplate } from '../helpers/test-template.js';

/** Tries every write a process could make under /sys/fs/cgroup, with values that would lift a limit; prints each that worked. */
const cgroupWrites = [
  'for dir in /sys/fs/cgroup /sys/fs/cgroup/*/; do',
  '  mkdir "$dir/escape" 2>/dev/null && echo "made $dir/escape"',
  '  for pair in cgroup.procs:$$ tasks:$$ pids.max:max memory.limit_in_bytes:-1 memory.max:max cpu.cfs_quota_us:-1 cpu.max:max; do',
  '    file="$dir/${pair%%:*}"',
  '    [ -e "$file" ] && (echo "${pair#*:}" > "$file") 2>/dev/null && echo "wrote $file"',
  '  done',
  'done',
  'echo tried',
].join('\n');

async function hostMemoryLimitBytes(id: string): Promise<number> {
  const file = (await cgroupVersion()) === 2 ? `/sys/fs/cgroup${sandboxCgroupsPath(id)}/memory.max` : `/sys/fs/cgroup/memory${sandboxCgroupsPath(id)}/memory.limit_in_bytes`;
  return Number((await readFile(file, 'utf8')).trim());
}

/** Calls a system call directly (no helper binary that could refuse on its own) and prints "result error". */
async function rawSyscall(runtime: SandboxRuntime, id: string, number: number, args: string, setup = ''): Promise<string> {
  const script = `import ctypes, os\n${setup}\nlibc = ctypes.CDLL(None, use_errno=True)\n` + `r = libc.syscall(${number}, ${args})\nprint(r, os.strerror(ctypes.get_errno()))\n`;
  const result = await runtime.exec(id, { command: 'python3 -', stdin: Buffer.from(script), timeoutMs: 10_000, maxOutputBytes: 10_000 });
  return result.stdout.toString() + result.stderr.toString();
}

describe.each(['runc', 'gvisor'] as RuntimeName[])('%s: isolation', (driver) => {
  let runtime: SandboxRuntime;
  const spec = testSpec();
  const hostSecret = `/tmp/paddock-host-secret-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    await ensureTestTemplate();
    await writeFile(hostSecret, 'host secret');
    runtime = testRuntime(driver);
    await runtime.init();
    await runtime.create(spec);
  });

  afterAll(async () => {
    await runtime?.destroy(spec.id);
    await rm(hostSecret, { force: true });
  });

  it('cannot see host processes', async () => {
    const result = await shell(runtime, spec.id, 'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done');
    expect(result.out).not.toMatch(/vitest|node |systemd|runc|runsc/);
    expect(result.out.trim().split('\n').length).toBeLessThan(10);
  });

  it('cannot read or write host files', async () => {
    const read = await shell(runtime, spec.id, `cat ${hostSecret}; ls ${process.cwd()} 2>&1; cat /proc/1/root${hostSecret} 2>&1`);
    expect(read.out + read.err).not.toContain('host secret');
    await shell(runtime, spec.id, `echo planted > ${hostSecret}-planted`);
    await expect(import('node:fs/promises').then((fs) => fs.stat(`${hostSecret}-planted`))).rejects.toThrow();
  });

  it('cannot mount filesystems', async () => {
    const result = await shell(runtime, spec.id, 'mount -t tmpfs none /mnt 2>&1; echo "mount=$?"; mount -t proc proc /mnt 2>&1; echo "proc=$?"');
    expect(result.out).toContain('mount=32');
    expect(result.out).not.toContain('proc=0');
    expect(await rawSyscall(runtime, spec.id, 165, 'b"none", b"/mnt", b"tmpfs", 0, None')).toMatch(/^-1 /);
  });

  it('cannot load kernel modules', async () => {
    const refused = /^-1 (Operation not permitted|Function not implemented)/;
    expect(await rawSyscall(runtime, spec.id, 313, 'fd, b"", 0', 'fd = os.open("/dev/null", os.O_RDONLY)')).toMatch(refused);
    expect(await rawSyscall(runtime, spec.id, 175, 'None, 0, b""')).toMatch(refused);
  });

  it('cannot gain privileges or create user namespaces on the host kernel', async () => {
    const result = await shell(runtime, spec.id, 'grep -E "NoNewPrivs|CapEff" /proc/self/status; unshare --user --map-root-user true 2>&1; echo "unshare=$?"');
    expect(result.out).not.toMatch(/CapEff:\s+000001ffffffffff/);
    expect(result.out).toMatch(/CapEff:\s+00000000a80425fb|CapEff:\s+00000000a80405fb/);
    // Under gVisor a user namespace is the Sentry's own construct, not the host kernel's; runc refuses it.
    if (driver === 'runc') {
      expect(result.out).not.toContain('unshare=0');
      expect(result.out).toMatch(/NoNewPrivs:\s+1/);
    }
  });

  it('cannot change kernel settings', async () => {
    const result = await shell(runtime, spec.id, 'echo 1 > /proc/sys/kernel/sysrq 2>&1; echo "sysctl=$?"; echo c > /proc/sysrq-trigger 2>&1; echo "sysrq=$?"');
    expect(result.out).not.toContain('sysctl=0');
    expect(result.out).not.toContain('sysrq=0');
  });

  // runc shows the sandbox its own cgroups read-only; gVisor shows an empty read-only directory (runsc would
  // mount the Sentry's emulated cgroupfs read-write, see oci/driver.ts).
  it('cannot write the cgroup filesystem, and its limits still hold', async () => {
    const result = await shell(runtime, spec.id, cgroupWrites);
    expect(result.out).toBe('tried\n');
    expect(await hostMemoryLimitBytes(spec.id)).toBe(spec.memoryMb * 1024 * 1024);
    const seen = await shell(runtime, spec.id, 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max 2>/dev/null; ls -A /sys/fs/cgroup');
    if (driver === 'runc') expect(seen.out).toContain(`${spec.memoryMb * 1024 * 1024}\n`);
    else expect(seen.out).toBe('');
    expect((await shell(runtime, spec.id, 'echo still working')).out).toBe('still working\n');
  });

  it('has no network beyond loopback in mode none', async () => {
    const result = await shell(runtime, spec.id, 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "');
    expect(
      result.out
        .trim()
        .split('\n')
        .filter((name) => name !== 'lo'),
    ).toEqual([]);
  });
});
