// Conformance: create from templates, destroy without a trace, and reconcile after a restart, for every driver.
import { execFile } from 'node:child_process';
import { access, mkdir, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { TemplateNotReady } from '../../src/runtime/errors.js';
import { cgroupDirs } from '../../src/runtime/host/cgroups.js';
import { mountPointsUnder } from '../../src/runtime/host/mounts.js';
import { createRuntime } from '../../src/runtime/index.js';
import { runtimePaths, sandboxPaths } from '../../src/runtime/paths.js';
import type { RuntimeName, SandboxRuntime } from '../../src/runtime/runtime.js';
import { templateLowerDirs } from '../../src/runtime/templates/template-store.js';
import { createLoopbackNetwork } from '../helpers/loopback-network.js';
import { shell, testDataDir, testRuntime, testSpec } from '../helpers/runtime-environment.js';
import { waitFor } from '../helpers/wait-for.js';
import { processAlive as pidAlive } from '../../src/runtime/host/process-tree.js';
import { ensureTestTemplate } from '../helpers/test-template.js';

const runFile = promisify(execFile);

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

async function runtimeKnows(driver: RuntimeName, dataDir: string, id: string): Promise<boolean> {
  const paths = runtimePaths(dataDir);
  const [binary, root] = driver === 'runc' ? ['runc', paths.runcRoot] : ['runsc', paths.runscRoot];
  const { stdout } = await runFile(binary, ['--root', root, 'list', '--quiet']).catch(() => ({ stdout: '' }));
  return stdout.split('\n').includes(id);
}

async function traces(driver: RuntimeName, dataDir: string, id: string, netnsPrefix: string): Promise<string[]> {
  const found: string[] = [];
  const paths = sandboxPaths(dataDir, id);
  if (await exists(paths.dir)) found.push(`dir ${paths.dir}`);
  if ((await mountPointsUnder(paths.dir)).length > 0) found.push('mounts');
  if (await runtimeKnows(driver, dataDir, id)) found.push('runtime state');
  if (await exists(`/run/netns/${netnsPrefix}${id}`)) found.push('netns');
  for (const dir of await cgroupDirs(`/paddock/${id}`)) if (await exists(dir)) found.push(`cgroup ${dir}`);
  const { stdout } = await runFile('losetup', ['--list', '--noheadings', '--output', 'BACK-FILE']);
  if (stdout.includes(paths.diskImage)) found.push('loop device');
  return found;
}

describe.each(['runc', 'gvisor'] as RuntimeName[])('%s: lifecycle', (driver) => {
  let runtime: SandboxRuntime;

  beforeAll(async () => {
    await ensureTestTemplate();
    runtime = testRuntime(driver);
    await runtime.init();
  });

  it('refuses a template that is not ready and says how to fix it', async () => {
    if (await templateLowerDirs(testDataDir, 'python-312')) return;
    const spec = testSpec({ template: 'python-312' });
    const error = await runtime.create(spec).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TemplateNotReady);
    expect((error as TemplateNotReady).howToFix).toContain('paddock templates import python-312');
    expect(await traces(driver, testDataDir, spec.id, 'pdktest-')).toEqual([]);
  });

  it('destroy leaves no trace and is idempotent', async () => {
    const spec = testSpec();
    await runtime.create(spec);
    await shell(runtime, spec.id, 'sleep 300 >/dev/null 2>&1 & echo data > /workspace/file');
    expect((await traces(driver, testDataDir, spec.id, 'pdktest-')).length).toBeGreaterThan(3);
    await runtime.destroy(spec.id);
    expect(await traces(driver, testDataDir, spec.id, 'pdktest-')).toEqual([]);
    await runtime.destroy(spec.id);
  });

  it('lets two destroys of one sandbox race: both succeed and nothing is left', async () => {
    const spec = testSpec();
    await runtime.create(spec);
    await Promise.all([runtime.destroy(spec.id), runtime.destroy(spec.id), runtime.destroy(spec.id)]);
    expect(await traces(driver, testDataDir, spec.id, 'pdktest-')).toEqual([]);
  });

  it('pauses a sandbox the moment it is created, and resumes it', async () => {
    // Right after a create runc's init may still be exec'ing the first process; a freeze caught there never finishes.
    for (let round = 0; round < 3; round++) {
      const spec = testSpec();
      await runtime.create(spec);
      await runtime.pause(spec.id);
      expect(await runtime.state(spec.id)).toBe('paused');
      await runtime.resume(spec.id);
      expect((await shell(runtime, spec.id, 'echo ok')).out).toBe('ok\n');
      await runtime.destroy(spec.id);
    }
  });

  it('destroys a paused sandbox', async () => {
    const spec = testSpec();
    await runtime.create(spec);
    await runtime.pause(spec.id);
    await runtime.destroy(spec.id);
    expect(await traces(driver, testDataDir, spec.id, 'pdktest-')).toEqual([]);
  });

  it('reconciles after the driver object is dropped: keeps the live, reports the dead, cleans the rest', async () => {
    // A data dir of its own (sharing the built templates), so cleaning leftovers never touches other suites.
    const dataDir = path.join(testDataDir, `reconcile-${driver}`);
    await mkdir(dataDir, { recursive: true });
    if (!(await exists(path.join(dataDir, 'templates')))) await symlink('../templates', path.join(dataDir, 'templates'));
    const netnsPrefix = `pdkrc${driver[0]}-`;
    const make = (): SandboxRuntime => createRuntime(driver, { dataDir, network: createLoopbackNetwork(netnsPrefix), dnsServers: [] });
    const before = make();
    await before.init();
    await before.reconcile([]);
    const kept = testSpec({ env: { KEPT: 'yes' } });
    const orphan = testSpec();
    const crashed = testSpec();
    for (const spec of [kept, orphan, crashed]) await before.create(spec);
    await shell(before, kept.id, 'echo before > /workspace/marker');
    // Simulate the sandbox's processes dying while the server was down.
    const paths = runtimePaths(dataDir);
    if (driver === 'runc') await runFile('runc', ['--root', paths.runcRoot, 'kill', crashed.id, 'KILL']);
    else await runFile('runsc', ['--root', paths.runscRoot, 'kill', '--all', crashed.id, 'KILL']);
    await waitFor(
      'the killed sandbox to stop',
      async () => {
        const [binary, root] = driver === 'runc' ? ['runc', paths.runcRoot] : ['runsc', paths.runscRoot];
        const { stdout } = await runFile(binary, ['--root', root, 'state', crashed.id]);
        return JSON.parse(stdout).status === 'stopped' || !(await pidAlive(JSON.parse(stdout).pid));
      },
      10_000,
    );

    const after = make();
    await after.init();
    const result = await after.reconcile([kept.id, crashed.id, 'never-existed']);
    expect(result.alive).toEqual([kept.id]);
    expect(result.dead.sort()).toEqual([crashed.id, 'never-existed'].sort());
    expect(result.cleaned).toContain(orphan.id);
    expect(await traces(driver, dataDir, orphan.id, netnsPrefix)).toEqual([]);
    expect((await shell(after, kept.id, 'cat /workspace/marker; echo $KEPT')).out).toBe('before\nyes\n');

    await after.destroy(kept.id);
    await after.destroy(crashed.id);
    expect(await traces(driver, dataDir, crashed.id, netnsPrefix)).toEqual([]);
    expect(await readdir(paths.sandboxesDir)).toEqual([]);
  });
});
