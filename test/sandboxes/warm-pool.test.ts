// The warm pool on real runtimes: a create that fits is answered with a pre-started sandbox that then
// behaves like a cold one (env, limits, hostname, files, terminal, pause, snapshots, destroy); other
// shapes start cold; the pool refills; a server killed with a full pool leaves nothing behind.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { cgroupDirs, cgroupVersion } from '../../src/runtime/host/cgroups.js';
import { mountPointsUnder } from '../../src/runtime/host/mounts.js';
import { runtimePaths, sandboxPaths } from '../../src/runtime/paths.js';
import type { RuntimeName } from '../../src/runtime/runtime.js';
import { startApp, TEST_TEMPLATES_DIR, type TestApp } from '../helpers/app.js';
import { dropPgDatabase } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait-for.js';

const run = promisify(execFile);
const RUNTIMES = ['runc', 'gvisor'] as const;
// The claim is the usual row insert with a pre-generated id: PostgreSQL once, on the faster driver.
const COMBOS = [
  ['runc', 'sqlite'],
  ['gvisor', 'sqlite'],
  ['runc', 'postgres'],
] as const;
const TEMPLATE = 'python-311';
const POOL_PROFILE = 4;

/** Everything a sandbox leaves on the host while it exists. */
async function traces(app: { dataDir: string }, runtime: RuntimeName, id: string): Promise<string[]> {
  const found: string[] = [];
  const paths = sandboxPaths(app.dataDir, id);
  if (fs.existsSync(paths.dir)) found.push('dir');
  if ((await mountPointsUnder(paths.dir)).length) found.push('mounts');
  const [binary, root] = runtime === 'runc' ? ['runc', runtimePaths(app.dataDir).runcRoot] : ['runsc', runtimePaths(app.dataDir).runscRoot];
  const { stdout } = await run(binary, ['--root', root, 'list', '--quiet']).catch(() => ({ stdout: '' }));
  if (stdout.split('\n').includes(id)) found.push('runtime state');
  if (fs.readdirSync('/run/netns').some((name) => name.endsWith(`-${id}`))) found.push('netns');
  for (const dir of await cgroupDirs(`/paddock/${id}`)) if (fs.existsSync(dir)) found.push(`cgroup ${dir}`);
  return found;
}

/** The sandbox's limits as the host enforces them: cpu quota (µs per 100 ms) and memory bytes. */
async function hostLimits(id: string): Promise<{ cpuQuota: number; memoryBytes: number }> {
  if ((await cgroupVersion()) === 2) {
    const dir = `/sys/fs/cgroup/paddock/${id}`;
    return { cpuQuota: Number(fs.readFileSync(`${dir}/cpu.max`, 'utf8').split(' ')[0]), memoryBytes: Number(fs.readFileSync(`${dir}/memory.max`, 'utf8')) };
  }
  return {
    cpuQuota: Number(fs.readFileSync(`/sys/fs/cgroup/cpu/paddock/${id}/cpu.cfs_quota_us`, 'utf8')),
    memoryBytes: Number(fs.readFileSync(`/sys/fs/cgroup/memory/paddock/${id}/memory.limit_in_bytes`, 'utf8')),
  };
}

/** Types into a terminal and waits for `pattern` in its output. */
async function terminalOutput(url: string, token: string, input: string, pattern: RegExp): Promise<string> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  let output = '';
  socket.on('message', (data: Buffer, isBinary) => {
    if (isBinary) output += data.toString('utf8');
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(input);
  try {
    await waitFor(
      `${pattern} on the terminal`,
      () => {
        if (!pattern.test(output)) throw new Error(`the output so far is ${JSON.stringify(output.slice(-500))}`);
        return true;
      },
      15_000,
      25,
    );
    return output;
  } finally {
    socket.close();
  }
}

describe.each(COMBOS)('warm pool on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;
  // gVisor's Sentry takes its memory size from the limit at start: only the pool's 512 MB fits there.
  const memoryMb = runtime === 'gvisor' ? 512 : 256;
  const status = () => t.runtime!.warmPoolStatus!()[0];
  const waitForReady = () => waitFor('one ready sandbox in the pool', () => status().ready.length === 1, 60_000);
  const create = async (body: object) => {
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: TEMPLATE, ...body } });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const exec = async (id: string, command: string) => (await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command } })).body;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_WARM_POOL: `${TEMPLATE}:1` }, { runtime });
    key = (await t.signupOnPlan('team')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a create that fits with the pre-started sandbox, sized and configured as asked', async () => {
    await waitForReady();
    const pooled = status().ready[0];
    const sandbox = await create({ cpus: 1, memory_mb: memoryMb, env: { GREETING: 'hello-pool' } });
    expect(sandbox.id).toBe(pooled);
    expect(status().claimed).toBe(1);
    expect(sandbox).toMatchObject({ status: 'running', cpus: 1, memory_mb: memoryMb, network_mode: 'full', disk_gb: 5 });

    const names = await exec(sandbox.id, 'echo "$GREETING $HOSTNAME $(hostname) $(cat /etc/hostname)"; grep -c "$(hostname)" /etc/hosts');
    expect(names).toMatchObject({ exit_code: 0, output: `hello-pool ${pooled} ${pooled} ${pooled}\n1\n` });
    // Per-command env still wins over the sandbox env, as on a cold sandbox.
    const overridden = await t.request('POST', `/v1/sandboxes/${sandbox.id}/exec`, { token: key, body: { command: 'echo $GREETING', env: { GREETING: 'per-command' } } });
    expect(overridden.body.output).toBe('per-command\n');

    expect(await hostLimits(sandbox.id)).toEqual({ cpuQuota: 100_000, memoryBytes: memoryMb * 1024 * 1024 });
    if (runtime === 'runc') {
      const inside = await exec(
        sandbox.id,
        'cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes; cat /sys/fs/cgroup/cpu.max 2>/dev/null || cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us',
      );
      expect(
        inside.output
          .split('\n')
          .slice(0, 2)
          .map((line: string) => line.split(' ')[0]),
      ).toEqual([String(memoryMb * 1024 * 1024), '100000']);
    } else {
      expect((await exec(sandbox.id, 'grep MemTotal /proc/meminfo')).output).toMatch(new RegExp(`^MemTotal:\\s+${memoryMb * 1024} kB`));
    }

    const content = Buffer.from('written through the files API');
    const put = await fetch(`${t.url}/v1/sandboxes/${sandbox.id}/files/content?path=notes/a.txt`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
      body: content,
    });
    expect(put.status).toBe(200);
    expect((await exec(sandbox.id, 'cat /workspace/notes/a.txt')).output).toBe(content.toString());

    const wsUrl = `${t.url.replace(/^http/, 'ws')}/v1/sandboxes/${sandbox.id}/terminal`;
    await terminalOutput(wsUrl, key, 'echo "IN-TERMINAL=$GREETING/$TERM"\r', /IN-TERMINAL=hello-pool\/xterm-256color\r\n/);
  });

  it('keeps the env and limits through pause, resume and a snapshot restore (which restarts the sandbox)', async () => {
    await waitForReady();
    const pooled = status().ready[0];
    const sandbox = await create({ cpus: 1, memory_mb: memoryMb, env: { KEPT: 'yes' } });
    expect(sandbox.id).toBe(pooled);
    expect((await t.request('POST', `/v1/sandboxes/${sandbox.id}/pause`, { token: key })).status).toBe(200);
    expect((await t.request('POST', `/v1/sandboxes/${sandbox.id}/resume`, { token: key })).status).toBe(200);
    expect((await exec(sandbox.id, 'echo $KEPT > /workspace/kept; cat /workspace/kept')).output).toBe('yes\n');

    const snapshot = await t.request('POST', `/v1/sandboxes/${sandbox.id}/snapshots`, { token: key, body: { name: 'pooled' } });
    expect(snapshot.status).toBe(201);
    await exec(sandbox.id, 'rm /workspace/kept');
    const restored = await t.request('POST', `/v1/snapshots/${snapshot.body.id}/restore`, { token: key, body: { sandbox_id: sandbox.id } });
    expect(restored.status).toBe(200);
    expect((await exec(sandbox.id, 'cat /workspace/kept; echo $KEPT; hostname')).output).toBe(`yes\nyes\n${sandbox.id}\n`);
    expect(await hostLimits(sandbox.id)).toEqual({ cpuQuota: 100_000, memoryBytes: memoryMb * 1024 * 1024 });
  });

  it('refills in the background after a claim, with a new sandbox', async () => {
    await waitForReady();
    const first = status().ready[0];
    const before = status().started;
    const sandbox = await create({});
    expect(sandbox.id).toBe(first);
    await waitForReady();
    expect(status().ready[0]).not.toBe(first);
    expect(status().started).toBe(before + 1);
    expect(await traces(t, runtime, status().ready[0])).toEqual(expect.arrayContaining(['dir', 'runtime state', 'netns']));
  });

  it('starts a shape the pool does not fit cold and leaves the pool as it was', async () => {
    await waitForReady();
    const pooled = status().ready[0];
    const claimed = status().claimed;
    const shapes: object[] = [{ network_mode: 'none' }, { disk_gb: 1 }, { network_mode: 'allowlist', allowlist: ['example.com'] }];
    if (runtime === 'gvisor') shapes.push({ memory_mb: 256 });
    for (const shape of shapes) {
      const sandbox = await create(shape);
      expect(sandbox.id).not.toBe(pooled);
      expect((await exec(sandbox.id, 'hostname')).output).toBe(`${sandbox.id}\n`);
    }
    if (runtime === 'gvisor') {
      const small = await create({ memory_mb: 256 });
      expect((await exec(small.id, 'grep MemTotal /proc/meminfo')).output).toMatch(/^MemTotal:\s+262144 kB/);
    }
    expect(status()).toMatchObject({ ready: [pooled], claimed });
  });

  it("lists only the account's sandboxes, and destroying a claimed one leaves no trace", async () => {
    await waitForReady();
    const waiting = status().ready[0];
    const listed = (await t.request('GET', '/v1/sandboxes?limit=100', { token: key })).body;
    expect(JSON.stringify(listed)).not.toContain(waiting);
    const sandbox = await create({});
    expect(sandbox.id).toBe(waiting);
    expect((await t.request('DELETE', `/v1/sandboxes/${sandbox.id}`, { token: key })).status).toBe(204);
    expect(await traces(t, runtime, sandbox.id)).toEqual([]);
  });

  it('destroys its waiting sandboxes when the server shuts down', async () => {
    await waitForReady();
    const waiting = status().ready[0];
    const app = t;
    t = null as unknown as TestApp;
    await app.close({ keepData: true });
    expect(await traces(app, runtime, waiting)).toEqual([]);
    expect(fs.readdirSync(path.join(app.dataDir, 'sandboxes'))).toEqual([]);
    fs.rmSync(app.dataDir, { recursive: true, force: true });
    if (app.databaseUrl) await dropPgDatabase(app.databaseUrl);
  });
});

describe.each(RUNTIMES)('warm pool after kill -9 on %s', (runtime) => {
  it("removes the dead server's pool sandboxes at start and fills the pool anew", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-pool-'));
    fs.symlinkSync(TEST_TEMPLATES_DIR, path.join(dataDir, 'templates'));
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/helpers/warm-pool-server.ts'), dataDir, String(POOL_PROFILE), runtime, `${TEMPLATE}:2`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const first = await new Promise<{ ready: string[] }>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]));
      });
      child.once('exit', (code) => reject(new Error(`pool server exited with ${code}: ${stderr}`)));
    });
    expect(first.ready).toHaveLength(2);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    for (const id of first.ready) expect(await traces({ dataDir }, runtime, id)).toEqual(expect.arrayContaining(['dir', 'runtime state']));

    const t = await startApp('sqlite', { PADDOCK_WARM_POOL: `${TEMPLATE}:2` }, { runtime, networkProfile: POOL_PROFILE, reuse: { dataDir, databaseUrl: null } });
    try {
      for (const id of first.ready) expect(await traces(t, runtime, id)).toEqual([]);
      await waitFor('the pool to refill to two', () => t.runtime!.warmPoolStatus!()[0].ready.length === 2, 60_000);
      const refilled = t.runtime!.warmPoolStatus!()[0].ready;
      expect(refilled.filter((id) => first.ready.includes(id))).toEqual([]);
      expect(fs.readdirSync(path.join(dataDir, 'sandboxes')).sort()).toEqual([...refilled].sort());
    } finally {
      await t.close();
    }
    // Two servers' pools filled one after the other: on a busy two-core machine more than the default minute.
  }, 180_000);
});

describe('warm pool of a template that is not built', () => {
  it('keeps nothing for it, says so in the log, and creates still work', async () => {
    const t = await startApp('sqlite', { PADDOCK_WARM_POOL: 'python-312:1' }, { runtime: 'runc' });
    try {
      if (fs.existsSync(path.join(TEST_TEMPLATES_DIR, 'python-312', 'ready.json'))) return;
      await waitFor('the log line on the unbuilt template', () => fs.readFileSync(t.logFile, 'utf8').includes('warm pool skips a template that is not built'), 10_000);
      expect(t.runtime!.warmPoolStatus!()).toEqual([{ template: 'python-312', target: 1, ready: [], claimed: 0, started: 0 }]);
      const { key } = await t.signupOnPlan('team');
      expect((await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-312' } })).status).toBe(400);
      expect((await t.request('POST', '/v1/sandboxes', { token: key, body: { template: TEMPLATE } })).status).toBe(201);
    } finally {
      await t.close();
    }
  });
});

describe('warm pool turned off', () => {
  it('starts every sandbox cold and keeps nothing waiting', async () => {
    const t = await startApp('sqlite', {}, { runtime: 'runc' });
    try {
      expect(t.config.warmPool).toEqual({});
      const { key } = await t.signupOnPlan('team');
      const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: TEMPLATE, env: { COLD: 'yes' } } });
      expect(reply.status).toBe(201);
      expect((await t.request('POST', `/v1/sandboxes/${reply.body.id}/exec`, { token: key, body: { command: 'echo $COLD' } })).body.output).toBe('yes\n');
      expect(t.runtime!.warmPoolStatus!()).toEqual([]);
      expect(fs.readdirSync(path.join(t.dataDir, 'sandboxes'))).toEqual([reply.body.id]);
    } finally {
      await t.close();
    }
  });
});
