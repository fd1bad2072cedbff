// Templates: status reporting, the CLI surface, and importing an OCI image archive (made here with umoci).
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { importTemplate } from '../../src/runtime/templates/import.js';
import { runTemplatesCommand } from '../../src/runtime/templates/command.js';
import { templateStatus } from '../../src/runtime/templates/status.js';
import { shell, testDataDir, testSpec } from './support/environment.js';
import { createLoopbackNetwork } from './support/loopback-network.js';

const runFile = promisify(execFile);

/** An OCI archive of a tiny rootfs: dash as /bin/sh, sleep, and the libraries they need, copied from the host. */
async function makeTinyImageArchive(workDir: string, victim: string, workspaceLink?: string): Promise<string> {
  const layout = path.join(workDir, 'layout');
  const bundle = path.join(workDir, 'bundle');
  await runFile('umoci', ['init', '--layout', layout]);
  await runFile('umoci', ['new', '--image', `${layout}:tiny`]);
  await runFile('umoci', ['unpack', '--image', `${layout}:tiny`, bundle]);
  const rootfs = path.join(bundle, 'rootfs');
  for (const dir of ['bin', 'lib/x86_64-linux-gnu', 'lib64', 'etc', 'tmp']) await mkdir(path.join(rootfs, dir), { recursive: true });
  await copyFile('/bin/dash', path.join(rootfs, 'bin/dash'));
  await copyFile('/bin/sleep', path.join(rootfs, 'bin/sleep'));
  await symlink('dash', path.join(rootfs, 'bin/sh'));
  await copyFile('/lib/x86_64-linux-gnu/libc.so.6', path.join(rootfs, 'lib/x86_64-linux-gnu/libc.so.6'));
  await copyFile('/lib64/ld-linux-x86-64.so.2', path.join(rootfs, 'lib64/ld-linux-x86-64.so.2'));
  // Hostile entries: host-side writes at create time must replace these, never follow them.
  await symlink(victim, path.join(rootfs, 'etc/hosts'));
  await symlink(victim, path.join(rootfs, 'etc/resolv.conf'));
  if (workspaceLink) await symlink(workspaceLink, path.join(rootfs, 'workspace'));
  await runFile('umoci', ['repack', '--image', `${layout}:tiny`, bundle]);
  const archive = path.join(workDir, 'tiny.oci.tar');
  await runFile('skopeo', ['copy', '--quiet', `oci:${layout}:tiny`, `oci-archive:${archive}`]);
  return archive;
}

describe('templates', () => {
  let scratch: string;

  beforeAll(async () => {
    await mkdir(testDataDir, { recursive: true });
    scratch = await mkdtemp(path.join(testDataDir, 'templates-test-'));
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('lists every template as not ready on a fresh data dir, with how to fix it', async () => {
    const statuses = await templateStatus(path.join(scratch, 'empty'));
    expect(statuses.map((status) => status.name)).toEqual(['node-22', 'node-20', 'python-312', 'python-311', 'minimal']);
    for (const status of statuses) {
      expect(status.ready).toBe(false);
      expect(status.description.length).toBeGreaterThan(10);
      expect(status.how_to_fix).toMatch(/paddock templates (build|import)/);
    }
    expect(statuses.find((status) => status.name === 'python-312')?.how_to_fix).toContain('import');
  });

  it('refuses to build a template that needs an image, and bad arguments', async () => {
    expect(await runTemplatesCommand(['build', 'python-312'], path.join(scratch, 'empty'))).toBe(1);
    expect(await runTemplatesCommand(['build', 'no-such'], path.join(scratch, 'empty'))).toBe(1);
    expect(await runTemplatesCommand(['import', 'python-312'], path.join(scratch, 'empty'))).toBe(2);
    expect(await runTemplatesCommand(['frobnicate'], path.join(scratch, 'empty'))).toBe(2);
  });

  it('imports an OCI image archive and runs a sandbox from it', async () => {
    const dataDir = path.join(scratch, 'imported');
    const victim = path.join(scratch, 'host-victim');
    await writeFile(victim, 'host file');
    const archive = await makeTinyImageArchive(path.join(scratch, 'image'), victim);
    await expect(
      importTemplate(path.join(scratch, 'hostile'), 'python-312', await makeTinyImageArchive(path.join(scratch, 'hostile-image'), victim, '/tmp')),
    ).rejects.toThrow(/outside the root filesystem/);
    await importTemplate(dataDir, 'python-312', archive);
    const status = (await templateStatus(dataDir)).find((entry) => entry.name === 'python-312');
    expect(status?.ready).toBe(true);

    const runtime = createRuntime('runc', { dataDir, network: createLoopbackNetwork('pdkim-'), dnsServers: [] });
    await runtime.init();
    const spec = testSpec({ template: 'python-312' });
    await runtime.create(spec);
    try {
      const result = await shell(runtime, spec.id, 'echo "imported $(pwd)"; ls /');
      expect(result.out).toContain('imported /workspace');
      expect(result.out).not.toContain('usr');
      expect(await readFile(victim, 'utf8')).toBe('host file');
    } finally {
      await runtime.destroy(spec.id);
    }
  });
});
