// `packages` and `agents` installed during set-up, from package indexes in the test "outside world".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitForSandboxStatus } from '../helpers/sandboxes.js';
import { createWorld, PACKAGE_INDEX_ENV, type World } from '../helpers/world.js';

const RUNTIMES = ['runc', 'gvisor'] as const;
const COMBOS = RUNTIMES.flatMap((runtime) => BACKENDS.map((backend) => [runtime, backend] as const));
const CATALOG = {
  agent_a: "printf '#!/bin/sh\\necho agent a ready\\n' > /usr/local/bin/agent_a && chmod +x /usr/local/bin/agent_a",
  agent_b: 'echo "agent b cannot be installed here" >&2; exit 2',
};

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => {
  await world?.close();
});

describe.each(COMBOS)('packages and agents on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_AGENT_CATALOG: JSON.stringify(CATALOG) }, { runtime });
    key = (await t.signupOnPlan('enterprise')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function createAndWait(body: object) {
    const created = await t.request('POST', '/v1/sandboxes', { token: key, body: { cpus: 1, memory_mb: 512, disk_gb: 1, env: PACKAGE_INDEX_ENV, ...body } });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('creating');
    return waitForSandboxStatus(t, key, created.body.id, ['running', 'error'], 90_000);
  }
  const exec = async (id: string, command: string) => (await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command } })).body;

  it('installs npm packages globally on node templates', async () => {
    const sandbox = await createAndWait({ template: 'node-22', packages: ['paddock-hello'] });
    expect(sandbox, sandbox.error).toMatchObject({ status: 'running', packages: ['paddock-hello'] });
    expect((await exec(sandbox.id, 'paddock-hello')).output).toBe('hello from npm\n');
  });

  it('installs pip packages on python templates', async () => {
    const sandbox = await createAndWait({ template: 'python-311', packages: ['paddock-hello==1.0.0'] });
    expect(sandbox.error).toBeNull();
    expect(sandbox.status).toBe('running');
    expect((await exec(sandbox.id, 'python3 -c "import paddock_hello; print(paddock_hello.GREETING)"')).output).toBe('hello from pip\n');
  });

  it('installs agents from the catalog, then runs init_script after them', async () => {
    const sandbox = await createAndWait({ template: 'python-311', network_mode: 'none', agents: ['agent_a'], init_script: 'agent_a > /workspace/agent.log' });
    expect(sandbox).toMatchObject({ status: 'running', agents: ['agent_a'] });
    expect((await exec(sandbox.id, 'cat agent.log')).output).toBe('agent a ready\n');
  });

  it('reports a package or agent that cannot be installed as an error naming the step', async () => {
    const missing = await createAndWait({ template: 'python-311', packages: ['no-such-package-here'] });
    expect(missing.status).toBe('error');
    expect(missing.error).toMatch(/^packages exited with \d+/);
    const agent = await createAndWait({ template: 'python-311', network_mode: 'none', agents: ['agent_b'] });
    expect(agent).toMatchObject({ status: 'error', error: 'agent agent_b exited with 2: agent b cannot be installed here' });
  });
});
