// Pause and resume on real sandboxes: a paused sandbox uses no host CPU and its processes keep their
// memory (a counter continues from where it stopped); exec and files answer clearly while paused; the
// idle timeout pauses with an `idle_timeout` alert; a crash is noticed without any request; paused and
// running sandboxes come back as they were after a server restart; the automatic snapshot holds writes made
// just before the pause.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandboxPaths } from '../../src/runtime/paths.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait-for.js';

const RUNTIMES = [
  ['runc', 'runc'],
  ['gvisor', 'runsc'],
] as const;

// Counts one per 10 ms of wall time spent running, so a frozen process does not count.
const COUNTER = `nohup python3 -c '
import os, time
open("/workspace/pid", "w").write(str(os.getpid()))
i = 0
while True:
    i += 1
    open("/workspace/count.tmp", "w").write(str(i))
    os.replace("/workspace/count.tmp", "/workspace/count")
    time.sleep(0.01)
' >/dev/null 2>&1 &`;

describe.each(RUNTIMES)('pause and resume with %s', (runtime, binary) => {
  let t: TestApp;
  let key: string;

  const create = async (body: object = {}) => {
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1, ...body } });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };
  const exec = async (id: string, command: string) => (await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command } })).body;
  const get = async (id: string) => (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
  const count = async (id: string) => Number((await exec(id, 'cat /workspace/count')).output);
  const cpuSeconds = async (id: string) => (await t.runtime!.usage(id)).cpuSeconds;
  const runtimeIds = () => execFileSync(binary, ['--root', path.join(t.dataDir, 'runtime', binary), 'list', '--quiet'], { encoding: 'utf8' }).split('\n');

  beforeAll(async () => {
    t = await startApp('sqlite', {}, { runtime, networkProfile: 1 });
    key = (await t.signupOnPlan('team')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('pauses with no CPU use and resumes with memory intact', async () => {
    const id = await create();
    expect((await exec(id, COUNTER)).exit_code).toBe(0);
    await waitFor('the counter to start', async () => (await count(id)) > 20);
    const pidBefore = (await exec(id, 'cat /workspace/pid')).output;

    const before = await count(id);
    const paused = await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id, status: 'paused', snapshot_id: expect.stringMatching(/^snap_/) });
    expect(Date.parse(paused.body.paused_at)).not.toBeNaN();
    expect((await get(id)).status).toBe('paused');

    const cpuAtPause = await cpuSeconds(id);
    const chargedAtPause = (await get(id)).compute_cost_usd;
    await sleep(2000);
    expect((await cpuSeconds(id)) - cpuAtPause).toBeLessThan(0.005);
    // No compute charge while paused.
    expect((await get(id)).compute_cost_usd).toBe(chargedAtPause);
    if (runtime === 'gvisor') {
      // A `none` gVisor sandbox is checkpointed: its memory is on disk and no sandbox process is left. The
      // stopped container is removed after the pause answers (src/runtime/oci/pause-resume.ts), once the host
      // has reaped its process: over a second, longer on a loaded machine.
      expect(fs.existsSync(path.join(sandboxPaths(t.dataDir, id).checkpointDir, 'checkpoint.img'))).toBe(true);
      await waitFor('the checkpointed container removed', () => (runtimeIds().includes(id) ? null : true));
    } else {
      expect(runtimeIds()).toContain(id);
    }

    // Exec, files and a second pause while paused.
    const refused = await exec(id, 'echo hi');
    expect(refused).toMatchObject({ exit_code: 1, error: expect.stringMatching(/paused; resume it with POST/) });
    const file = await t.request('GET', `/v1/sandboxes/${id}/files/content?path=/workspace/count`, { token: key });
    expect(file.status).toBe(409);
    expect(file.body.error).toMatch(/paused/);
    const again = await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key });
    expect(again.body).toMatchObject({ status: 'paused', snapshot_id: null });

    const resumed = await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ id, status: 'running', paused_at: null });
    const after = await count(id);
    // It went on from where it was: same process, and it did not count during the 2 s pause (200 ticks).
    expect(after).toBeGreaterThanOrEqual(before);
    expect(after - before).toBeLessThan(100);
    expect((await exec(id, 'cat /workspace/pid')).output).toBe(pidBefore);
    await waitFor('the counter to go on', async () => (await count(id)) > after + 10);
    // Charged again once resumed.
    await waitFor('compute to be charged again', async () => (await get(id)).compute_cost_usd > chargedAtPause);

    // The automatic pause snapshot completed and holds the files.
    const snapshot = (await t.request('GET', `/v1/snapshots/${paused.body.snapshot_id}`, { token: key })).body;
    expect(snapshot).toMatchObject({ kind: 'pause', status: 'completed', sandbox_id: id });
    expect(snapshot.size_bytes).toBeGreaterThan(0);
    expect((await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key })).body.status).toBe('running');
  });

  it('freezes instead of checkpointing while a command runs, or when the sandbox has a network', async () => {
    const id = await create();
    const running = t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command: 'sleep 3; echo done' } });
    await sleep(500);
    expect((await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key })).body.status).toBe('paused');
    expect(fs.existsSync(sandboxPaths(t.dataDir, id).checkpointDir)).toBe(false);
    expect(runtimeIds()).toContain(id);
    expect((await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key })).body.status).toBe('running');
    expect((await running).body.output).toBe('done\n');

    const networked = await create({ network_mode: 'full' });
    expect((await t.request('POST', `/v1/sandboxes/${networked}/pause`, { token: key })).body.status).toBe('paused');
    expect(fs.existsSync(sandboxPaths(t.dataDir, networked).checkpointDir)).toBe(false);
    const cpu = await cpuSeconds(networked);
    await sleep(1000);
    expect((await cpuSeconds(networked)) - cpu).toBeLessThan(0.005);
    expect((await t.request('POST', `/v1/sandboxes/${networked}/resume`, { token: key })).body.status).toBe('running');
    expect((await exec(networked, 'echo up')).output).toBe('up\n');
  });

  // No `sync` runs before a pause: this is the check that none is needed. A plain write and a write
  // through a shared memory mapping that stays mapped (the one kind of write a Sentry page cache could
  // hold back) are both in the automatic snapshot, on the checkpoint path (`none`) and the freezer path (`full`).
  it.each(['none', 'full'])('the automatic snapshot holds writes made just before the pause (network %s)', async (networkMode) => {
    const id = await create({ network_mode: networkMode });
    const written = await exec(
      id,
      `head -c 3000000 /dev/urandom > /workspace/fresh.bin && nohup python3 -c '
import mmap, time
f = open("/workspace/mapped.bin", "w+b"); f.write(b"\\0" * 8192); f.flush()
m = mmap.mmap(f.fileno(), 8192); m[0:6] = b"MAPPED"
open("/workspace/mapped.ready", "w").close()
time.sleep(600)
' >/dev/null 2>&1 & while [ ! -e /workspace/mapped.ready ]; do sleep 0.01; done; md5sum < /workspace/fresh.bin`,
    );
    expect(written.exit_code).toBe(0);
    const paused = await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key });
    expect(paused.body.status).toBe('paused');
    await t.services.snapshots!.settled();

    const link = await t.request('GET', `/v1/snapshots/${paused.body.snapshot_id}/download`, { token: key });
    expect(link.status).toBe(200);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-pause-snap-'));
    try {
      fs.writeFileSync(path.join(dir, 's.tar.gz'), Buffer.from(await (await fetch(link.body.url)).arrayBuffer()));
      fs.mkdirSync(path.join(dir, 'x'));
      execFileSync('tar', ['-xzf', path.join(dir, 's.tar.gz'), '-C', path.join(dir, 'x')]);
      const fresh = fs.readFileSync(path.join(dir, 'x', 'workspace', 'fresh.bin'));
      expect(fresh.length).toBe(3000000);
      expect(`${createHash('md5').update(fresh).digest('hex')}  -\n`).toBe(written.output);
      expect(
        fs
          .readFileSync(path.join(dir, 'x', 'workspace', 'mapped.bin'))
          .subarray(0, 6)
          .toString(),
      ).toBe('MAPPED');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect((await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key })).body.status).toBe('running');
    expect((await exec(id, 'head -c 6 /workspace/mapped.bin')).output).toBe('MAPPED');
  });

  it('keeps only the latest automatic snapshot and refuses pause or resume in other states', async () => {
    const id = await create();
    const first = (await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key })).body.snapshot_id;
    await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key });
    const second = (await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key })).body.snapshot_id;
    await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key });
    await t.services.snapshots!.settled();
    const listed = (await t.request('GET', `/v1/sandboxes/${id}/snapshots`, { token: key })).body;
    expect(listed.map((s: any) => s.id)).toEqual([second]);
    expect(first).not.toBe(second);

    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
    const pause = await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key });
    expect(pause.status).toBe(409);
    expect(pause.body.error).toMatch(/sandbox is destroyed; only a running sandbox can be paused/);
    expect((await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key })).status).toBe(409);
    expect((await t.request('POST', '/v1/sandboxes/sbx_missing/pause', { token: key })).status).toBe(404);
  });

  it('pauses a sandbox idle for its timeout and raises idle_timeout', async () => {
    const id = await create({ timeout: 2 });
    expect((await exec(id, 'echo active')).exit_code).toBe(0);
    const paused = await waitFor('the idle timeout', async () => ((await get(id)).status === 'paused' ? true : null), 10_000);
    expect(paused).toBe(true);
    const alerts = (await t.request('GET', `/v1/alerts?type=idle_timeout&sandbox_id=${id}`, { token: key })).body;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ type: 'idle_timeout', severity: 'info', sandbox_id: id, resolved: false });
    expect(alerts[0].message).toMatch(/paused after 2 s without activity/);

    // Activity keeps another one running.
    const busy = await create({ timeout: 3 });
    for (let i = 0; i < 5; i++) {
      expect((await exec(busy, 'true')).exit_code).toBe(0);
      await sleep(1000);
    }
    expect((await get(busy)).status).toBe('running');
    // Commands back to back record the activity once a second, not once each.
    expect((await exec(busy, 'true')).exit_code).toBe(0);
    const recorded = (await get(busy)).last_activity_at;
    expect(Date.now() - Date.parse(recorded)).toBeLessThan(1000);
    expect((await exec(busy, 'true')).exit_code).toBe(0);
    expect((await get(busy)).last_activity_at).toBe(recorded);
    await sleep(1000);
    expect((await exec(busy, 'true')).exit_code).toBe(0);
    expect(Date.parse((await get(busy)).last_activity_at)).toBeGreaterThanOrEqual(Date.parse(recorded) + 1000);
    expect((await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key })).body.status).toBe('running');
    expect((await exec(id, 'echo back')).output).toBe('back\n');
  });

  it('moves a sandbox whose processes die to error with sandbox_error, without any request to it', async () => {
    const id = await create();
    const root = path.join(t.dataDir, 'runtime', binary);
    const state = JSON.parse(execFileSync(binary, ['--root', root, 'state', id], { encoding: 'utf8' }));
    process.kill(state.pid, 'SIGKILL');
    const failed = await waitFor(
      'the monitor to notice',
      async () => {
        const sandbox = await get(id);
        return sandbox.status === 'error' ? sandbox : null;
      },
      15_000,
    );
    expect(failed.error).toMatch(/stopped unexpectedly/);
    const alerts = (await t.request('GET', `/v1/alerts?type=sandbox_error&sandbox_id=${id}`, { token: key })).body;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ severity: 'error', sandbox_id: id });
  });
});

describe.each(RUNTIMES)('server restart with paused and running sandboxes on %s', (runtime) => {
  it('keeps paused sandboxes paused and running ones running, and resumes afterwards', async () => {
    const first = await startApp('sqlite', {}, { runtime, networkProfile: 2 });
    const key = (await first.signupOnPlan('team')).key;
    const api = (t: TestApp) => ({
      create: async () => (await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } })).body.id as string,
      exec: async (id: string, command: string) => (await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command } })).body,
      post: (route: string) => t.request('POST', route, { token: key }),
      get: async (id: string) => (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body,
    });
    let a = api(first);
    const pausedId = await a.create();
    const runningId = await a.create();
    expect((await a.exec(pausedId, COUNTER)).exit_code).toBe(0);
    await waitFor('the counter', async () => Number((await a.exec(pausedId, 'cat /workspace/count')).output) > 10);
    const before = Number((await a.exec(pausedId, 'cat /workspace/count')).output);
    expect((await a.post(`/v1/sandboxes/${pausedId}/pause`)).status).toBe(200);
    expect((await a.exec(runningId, 'echo 7 > /workspace/n')).exit_code).toBe(0);
    await first.services.snapshots!.settled();
    await first.close({ keepData: true, keepSandboxes: true });

    const second = await startApp('sqlite', {}, { runtime, networkProfile: 2, reuse: { dataDir: first.dataDir, databaseUrl: first.databaseUrl } });
    try {
      a = api(second);
      expect((await a.get(pausedId)).status).toBe('paused');
      expect((await a.get(runningId)).status).toBe('running');
      expect((await a.exec(runningId, 'cat /workspace/n')).output).toBe('7\n');
      expect((await a.exec(pausedId, 'true')).error).toMatch(/paused/);
      // Still frozen after the restart: no CPU.
      const cpu = (await second.runtime!.usage(pausedId)).cpuSeconds;
      await sleep(1000);
      expect((await second.runtime!.usage(pausedId)).cpuSeconds - cpu).toBeLessThan(0.005);

      expect((await a.post(`/v1/sandboxes/${pausedId}/resume`)).body.status).toBe('running');
      const after = Number((await a.exec(pausedId, 'cat /workspace/count')).output);
      expect(after).toBeGreaterThanOrEqual(before);
      expect(after - before).toBeLessThan(100);
      await waitFor('the counter to go on', async () => Number((await a.exec(pausedId, 'cat /workspace/count')).output) > after + 10);
    } finally {
      await second.close();
    }
  });
});
