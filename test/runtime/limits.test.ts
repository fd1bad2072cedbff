// Conformance: disk, memory and pids limits hold inside the sandbox and leave the host alone.
import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxNotRunning } from '../../src/runtime/errors.js';
import { sandboxPaths } from '../../src/runtime/paths.js';
import type { RuntimeName, SandboxRuntime, SandboxSpec } from '../../src/runtime/runtime.js';
import { shell, testDataDir, testPidsLimit, testRuntime, testSpec } from '../helpers/runtime-environment.js';
import { ensureTestTemplate } from '../helpers/test-template.js';

describe.each(['runc', 'gvisor'] as RuntimeName[])('%s: limits', (driver) => {
  let runtime: SandboxRuntime;
  const created: string[] = [];
  let neighbour: string;

  async function sandbox(overrides: Partial<SandboxSpec>): Promise<string> {
    const spec = testSpec(overrides);
    await runtime.create(spec);
    created.push(spec.id);
    return spec.id;
  }

  beforeAll(async () => {
    await ensureTestTemplate();
    runtime = testRuntime(driver);
    await runtime.init();
    neighbour = await sandbox({});
  });

  afterAll(async () => {
    for (const id of created) await runtime.destroy(id);
  });

  it('fails writes past disk_gb inside the sandbox and keeps the host file small', async () => {
    const id = await sandbox({ diskGb: 1 });
    const result = await shell(runtime, id, 'dd if=/dev/zero of=/workspace/fill bs=1M count=1400 2>&1; echo "dd=$?"; sync', 120_000);
    expect(result.out).toContain('No space left on device');
    expect(result.out).not.toContain('dd=0');
    const image = await stat(sandboxPaths(testDataDir, id).diskImage);
    expect(image.blocks * 512).toBeLessThanOrEqual(1.05 * 1024 ** 3);
    expect((await shell(runtime, id, 'rm /workspace/fill && echo freed')).out).toBe('freed\n');
  });

  // runc: the kernel OOM-kills the process inside the sandbox's memory cgroup, the sandbox lives on.
  // gVisor: the whole sandbox is one host cgroup, so the host OOM killer ends the sandbox (reported stopped).
  it('contains a process that exceeds memory_mb', async () => {
    const id = await sandbox({ memoryMb: 128 });
    const hog = "python3 -c \"b = bytearray(600 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('survived')\"";
    if (driver === 'runc') {
      const result = await shell(runtime, id, hog, 60_000);
      expect(result.out).not.toContain('survived');
      expect(result.code).toBe(137);
      expect((await shell(runtime, id, 'echo alive')).out).toBe('alive\n');
    } else {
      await expect(shell(runtime, id, hog, 60_000)).rejects.toBeInstanceOf(SandboxNotRunning);
    }
    expect((await shell(runtime, neighbour, 'echo neighbour fine')).out).toBe('neighbour fine\n');
  });

  it('stops a fork bomb at the pids limit', async () => {
    const id = await sandbox({});
    const bomb = [
      'import os, time',
      'n = 0',
      'try:',
      '    for i in range(3000):',
      '        if os.fork() == 0:',
      '            os.closerange(0, 3)',
      '            time.sleep(30)',
      '            os._exit(0)',
      '        n += 1',
      '    print("forked", n)',
      'except OSError as error:',
      '    print("fork refused after", n, error.errno)',
    ].join('\n');
    const request = { command: 'python3 -', stdin: Buffer.from(bomb), timeoutMs: 60_000, maxOutputBytes: 10_000 };
    if (driver === 'runc') {
      const out = (await runtime.exec(id, request)).stdout.toString();
      expect(out).toContain('fork refused after');
      expect(Number(/after (\d+)/.exec(out)?.[1])).toBeLessThan(testPidsLimit);
    } else {
      // gVisor does not apply the pids limit inside; the memory limit of the sandbox's cgroup ends it instead.
      await expect(runtime.exec(id, request)).rejects.toBeInstanceOf(SandboxNotRunning);
    }
    expect((await shell(runtime, neighbour, 'echo neighbour fine')).out).toBe('neighbour fine\n');
  });
});
