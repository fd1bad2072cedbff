// Templates: status reporting, the CLI surface, importing an OCI image archive (made here with umoci),
// rebuilding what an older recipe made, and the tools every built template has.
import { execFile } from 'node:child_process';
import { access, copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountOverlay, unmount } from '../../src/runtime/host/mounts.js';
import { createRuntime } from '../../src/runtime/index.js';
import type { RuntimeName, SandboxRuntime } from '../../src/runtime/runtime.js';
import { baseLayerName } from '../../src/runtime/templates/base-layer.js';
import { buildState } from '../../src/runtime/templates/build.js';
import { findTemplate, templateCatalog } from '../../src/runtime/templates/catalog.js';
import { templateFingerprint } from '../../src/runtime/templates/fingerprint.js';
import { importTemplate } from '../../src/runtime/templates/import.js';
import { runTemplatesCommand } from '../../src/runtime/templates/command.js';
import { removeStaleLayers } from '../../src/runtime/templates/stale-layers.js';
import { templateStatus } from '../../src/runtime/templates/status.js';
import { writeTemplateRecord } from '../../src/runtime/templates/template-store.js';
import { shell, testDataDir, testRuntime, testSpec } from '../helpers/runtime-environment.js';
import { createLoopbackNetwork } from '../helpers/loopback-network.js';

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
    await expect(importTemplate(path.join(scratch, 'hostile'), 'python-312', await makeTinyImageArchive(path.join(scratch, 'hostile-image'), victim, '/tmp'))).rejects.toThrow(
      /outside the root filesystem/,
    );
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

const builtTemplates = templateCatalog.filter((template) => template.source === 'build').map((template) => template.name);

describe('rebuilding templates an older recipe made', () => {
  let scratch: string;
  const exists = (file: string): Promise<boolean> =>
    access(file).then(
      () => true,
      () => false,
    );

  beforeAll(async () => {
    await mkdir(testDataDir, { recursive: true });
    scratch = await mkdtemp(path.join(testDataDir, 'rebuild-test-'));
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("has built every template of the test data dir from today's recipe (else run: paddock templates build)", async () => {
    for (const name of builtTemplates) expect([name, await buildState(testDataDir, findTemplate(name)!)]).toEqual([name, 'current']);
  });

  it('tells an older build from a current one, and keeps an imported template as it is', async () => {
    const dataDir = path.join(scratch, 'states');
    const nodeTemplate = findTemplate('node-22')!;
    await mkdir(path.join(dataDir, 'templates/node-22/layer'), { recursive: true });
    await mkdir(path.join(dataDir, 'templates/_layers/base'), { recursive: true });
    expect(await buildState(dataDir, nodeTemplate)).toBe('missing');
    // What builds before fingerprints wrote: a record without one, over unnamed layers.
    const record = { name: 'node-22', source: 'build' as const, layers: ['node-22/layer', '_layers/base'], readyAt: new Date().toISOString() };
    await writeTemplateRecord(dataDir, record);
    expect(await buildState(dataDir, nodeTemplate)).toBe('outdated');
    const output = await captureStdout(() => runTemplatesCommand(['status'], dataDir));
    expect(output).toMatch(/node-22 +ready, built from an older recipe \(run: paddock templates build node-22\)/);
    await writeTemplateRecord(dataDir, { ...record, fingerprint: 'a0a0a0a0a0a0' });
    expect(await buildState(dataDir, nodeTemplate)).toBe('outdated');
    await writeTemplateRecord(dataDir, { ...record, fingerprint: templateFingerprint(nodeTemplate) });
    expect(await buildState(dataDir, nodeTemplate)).toBe('current');
    await writeTemplateRecord(dataDir, { ...record, source: 'import' });
    expect(await buildState(dataDir, nodeTemplate)).toBe('current');
  });

  it('names layers after their recipe, so a changed base package list means new layers', () => {
    const fingerprint = templateFingerprint(findTemplate('python-311')!);
    expect(fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(baseLayerName()).toMatch(/^_layers\/base-[0-9a-f]{12}$/);
    expect(new Set(builtTemplates.map((name) => templateFingerprint(findTemplate(name)!))).size).toBe(builtTemplates.length);
  });

  it("removes the layers an earlier build left, except one a sandbox's overlay still mounts", async () => {
    const dataDir = path.join(scratch, 'stale');
    const templates = path.join(dataDir, 'templates');
    const current = ['python-311/layer-0123456789ab', '_layers/base-0123456789ab'];
    for (const dir of [...current, 'python-311/layer', '_layers/base', 'minimal/layer-aaaaaaaaaaaa', 'minimal/layer-bbbbbbbbbbbb']) {
      await mkdir(path.join(templates, dir), { recursive: true });
    }
    await writeFile(path.join(templates, '_layers/base.ready'), '');
    await writeTemplateRecord(dataDir, { name: 'python-311', source: 'build', layers: current, readyAt: '', fingerprint: '0123456789ab' });
    await writeTemplateRecord(dataDir, { name: 'minimal', source: 'build', layers: ['minimal/layer-bbbbbbbbbbbb', '_layers/base'], readyAt: '', fingerprint: 'b' });
    // A sandbox started from the older python-311 layer, mounted through a symlink as test servers do.
    await symlink(templates, path.join(scratch, 'linked-templates'));
    const sandbox = path.join(scratch, 'sandbox');
    for (const dir of ['upper', 'work', 'rootfs']) await mkdir(path.join(sandbox, dir), { recursive: true });
    await mountOverlay({
      lowerDirs: [path.join(scratch, 'linked-templates/python-311/layer')],
      upperDir: path.join(sandbox, 'upper'),
      workDir: path.join(sandbox, 'work'),
      target: path.join(sandbox, 'rootfs'),
    });
    const lines: string[] = [];
    try {
      await removeStaleLayers(dataDir, (line) => lines.push(line));
    } finally {
      await unmount(path.join(sandbox, 'rootfs'));
    }
    expect(lines.sort()).toEqual(['kept python-311/layer: a sandbox still uses it (a later build removes it)', 'removed minimal/layer-aaaaaaaaaaaa: left by an earlier build']);
    for (const dir of [...current, 'python-311/layer', '_layers/base', 'minimal/layer-bbbbbbbbbbbb']) {
      expect([dir, await exists(path.join(templates, dir))]).toEqual([dir, true]);
    }
    await writeTemplateRecord(dataDir, { name: 'minimal', source: 'build', layers: ['minimal/layer-bbbbbbbbbbbb', current[1]], readyAt: '', fingerprint: 'b' });
    await removeStaleLayers(dataDir, () => {});
    expect(await exists(path.join(templates, 'python-311/layer'))).toBe(false);
    expect(await exists(path.join(templates, '_layers/base'))).toBe(false);
    expect(await exists(path.join(templates, '_layers/base.ready'))).toBe(false);
    expect(await exists(path.join(templates, current[1]))).toBe(true);
  });
});

async function captureStdout(work: () => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => chunks.push(String(chunk)) > 0) as typeof process.stdout.write;
  try {
    await work();
  } finally {
    process.stdout.write = write;
  }
  return chunks.join('');
}

// What people and agents reach for first, in every built template, on both runtimes.
const tools = ['ps', 'pkill', 'top', 'kill', 'less', 'unzip', 'jq', 'git', 'file', 'xz', 'curl'];
const toolChecks = [
  `for tool in ${tools.join(' ')}; do printf '%s=%s\\n' "$tool" "$(command -v $tool)"; done`,
  'ls /usr/bin/kill /bin/kill 2>/dev/null | head -1',
  'env kill -0 $$ && echo "kill program works"',
  'ps -e -o pid=,comm= | head -1',
  'pkill -0 -x no-such-process; echo "pkill=$?"',
  'top -b -n 1 | head -1 | cut -c1-5',
  `jq -n '{sum: (1 + 1)}' -c`,
  'printf squeezed | xz | xz -d; echo',
  'unzip -v | head -1 | cut -d" " -f1-2',
  'file -b /bin/sh',
  'echo paged | less -F',
  'git --version | cut -d" " -f1-2',
  'test -s /etc/ssl/certs/ca-certificates.crt && echo "ca bundle"; ls /etc/ssl/certs/*.pem | wc -l',
].join('\n');

describe.each(['runc', 'gvisor'] as RuntimeName[])('%s: tools in every built template', (driver) => {
  let runtime: SandboxRuntime;

  beforeAll(async () => {
    runtime = testRuntime(driver);
    await runtime.init();
  });

  it.each(builtTemplates)('%s has procps, less, unzip, jq, git, file, xz and the CA certificates', async (template) => {
    const spec = testSpec({ template });
    await runtime.create(spec);
    try {
      const result = await shell(runtime, spec.id, toolChecks);
      const lines = result.out.split('\n');
      // The shell's `command -v kill` names its builtin; the program is checked on its own below.
      for (const tool of tools) expect(lines).toContainEqual(tool === 'kill' ? 'kill=kill' : expect.stringMatching(new RegExp(`^${tool}=(/usr)?/bin/${tool}$`)));
      expect(lines).toContainEqual(expect.stringMatching(/^(\/usr)?\/bin\/kill$/));
      expect(result.out).toContain('kill program works\n');
      expect(lines).toContainEqual(expect.stringMatching(/^\s*1 \S+/));
      expect(result.out).toContain('pkill=1\n');
      expect(result.out).toContain('top -\n');
      expect(result.out).toContain('{"sum":2}\n');
      expect(result.out).toContain('squeezed\n');
      expect(result.out).toContain('UnZip 6.00\n');
      expect(result.out).toMatch(/symbolic link to dash|ELF 64-bit/);
      expect(result.out).toContain('paged\n');
      expect(result.out).toContain('git version\n');
      expect(result.out).toContain('ca bundle\n');
      expect(Number(lines.at(-2))).toBeGreaterThan(100);
      expect(result.err).toBe('');
    } finally {
      await runtime.destroy(spec.id);
    }
  });
});
