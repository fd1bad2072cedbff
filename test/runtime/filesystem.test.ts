// Conformance: the sandbox's root filesystem — writable where users work, changes kept in its own
// overlay upper dir (what snapshots will read), the Node.js template running under each driver.
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxPaths } from '../../src/runtime/paths.js';
import type { RuntimeName, SandboxRuntime } from '../../src/runtime/runtime.js';
import { shell, testDataDir, testNodeTemplate, testRuntime, testSpec } from '../helpers/runtime-environment.js';
import { waitFor } from '../helpers/wait-for.js';
import { ensureTestTemplate } from '../helpers/test-template.js';

describe.each(['runc', 'gvisor'] as RuntimeName[])('%s: filesystem', (driver) => {
  let runtime: SandboxRuntime;
  const spec = testSpec();
  const nodeSpec = testSpec({ template: testNodeTemplate });

  beforeAll(async () => {
    await ensureTestTemplate();
    runtime = testRuntime(driver);
    await runtime.init();
    await Promise.all([runtime.create(spec), runtime.create(nodeSpec)]);
  });

  afterAll(async () => {
    await runtime?.destroy(spec.id);
    await runtime?.destroy(nodeSpec.id);
  });

  it('is writable where users work', async () => {
    const dirs = ['/workspace', '/tmp', '/root', '/etc', '/usr/local/bin', '/var/tmp', '/home', '/dev/shm'];
    const result = await shell(runtime, spec.id, dirs.map((dir) => `touch ${dir}/probe && echo ok ${dir}`).join('; '));
    expect(result.out.trim().split('\n')).toEqual(dirs.map((dir) => `ok ${dir}`));
  });

  it('keeps the sandbox changes in its overlay upper dir', async () => {
    await shell(runtime, spec.id, 'echo kept > /workspace/change.txt && rm /etc/issue && sync');
    const upper = sandboxPaths(testDataDir, spec.id).upperDir;
    expect(await readFile(path.join(upper, 'workspace/change.txt'), 'utf8')).toBe('kept\n');
    expect((await lstat(path.join(upper, 'etc/issue'))).isCharacterDevice()).toBe(true);
    expect((await shell(runtime, spec.id, 'cat /etc/issue')).code).not.toBe(0);
  });

  it('runs the Node.js template and detects a node server port', async () => {
    const versions = await shell(runtime, nodeSpec.id, 'node -v && npm -v && pnpm -v && tsc -v');
    expect(versions.code).toBe(0);
    expect(versions.out).toMatch(/^v22\./);
    await shell(runtime, nodeSpec.id, "node -e \"require('http').createServer((q, s) => s.end('from node')).listen(3000)\" >/dev/null 2>&1 &");
    await waitFor('port 3000 to listen', async () => (await runtime.listeningPorts(nodeSpec.id)).some((port) => port.port === 3000), 15_000);
    const fetched = await shell(runtime, nodeSpec.id, 'node -e "fetch(\'http://127.0.0.1:3000\').then(r => r.text()).then(console.log)"');
    expect(fetched.out).toBe('from node\n');
  });
});
