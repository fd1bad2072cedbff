// Attempts from inside a sandbox to break out, each asserting that it failed: host files and processes,
// kernel modules, mounts, the host's services, other sandboxes, hosts outside an allowlist, and
// exhausting memory, processes or disk while the server and a neighbour sandbox keep answering.
// attacks.test.ts holds the rest of issue 16's battery.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createWorld, WORLD, type World } from '../helpers/world.js';

const RUNTIMES = ['runc', 'gvisor'] as const;

let world: World;
let hostServer: http.Server;
let hostPort: number;
let hostProcess: ChildProcess;
const marker = `paddock-host-marker-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  world = await createWorld();
  // A host service listening on every address: the sandbox must reach none of them.
  hostServer = http.createServer((_req, res) => res.end('host service'));
  await new Promise<void>((resolve) => hostServer.listen(0, '0.0.0.0', resolve));
  hostPort = (hostServer.address() as AddressInfo).port;
  fs.writeFileSync(`/tmp/${marker}`, 'host secret');
  hostProcess = spawn('sleep', ['3600', marker], { stdio: 'ignore' });
});
afterAll(async () => {
  hostProcess?.kill('SIGKILL');
  fs.rmSync(`/tmp/${marker}`, { force: true });
  await new Promise((resolve) => hostServer?.close(resolve));
  await world?.close();
});

/** Python run inside the sandbox: prints "open" or "blocked" per target. */
function probeScript(targets: [string, number][]): string {
  const program = [
    'import socket',
    `for host, port in ${JSON.stringify(targets)}:`,
    '    try:',
    '        socket.create_connection((host, port), 2).close()',
    '        print("open")',
    '    except Exception:',
    '        print("blocked")',
  ].join('\n');
  return `python3 -c '${program}'`;
}

const FORK_BOMB = [
  'import os, time',
  'count = 0',
  'try:',
  '    for _ in range(5000):',
  '        if os.fork() == 0:',
  '            os.closerange(0, 3)',
  '            time.sleep(5)',
  '            os._exit(0)',
  '        count += 1',
  'except OSError:',
  '    pass',
  'print(count)',
].join('\n');

describe.each(RUNTIMES)('escape attempts under %s', (runtime) => {
  let t: TestApp;
  let key: string;
  let victim: any;
  let neighbour: any;

  const create = async (body: object) => {
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1, ...body } });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const exec = async (id: string, command: string, timeout = 60) => (await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command, timeout } })).body;
  const probe = async (id: string, targets: [string, number][]) => (await exec(id, probeScript(targets))).stdout.trim().split('\n');

  /**
   * Runs a bomb and, while it runs (and once after), times an API call and an exec in the neighbour
   * sandbox: the server and other sandboxes must keep answering. Bounds are loose (a shared 2-core
   * machine); a server stalled by the bomb would miss them by far.
   */
  const whileBombing = async <T>(bomb: Promise<T>): Promise<T> => {
    let done = false;
    const settled = bomb.finally(() => (done = true));
    const apiMs: number[] = [];
    const execMs: number[] = [];
    do {
      let started = performance.now();
      expect((await t.request('GET', '/v1/account', { token: key })).status).toBe(200);
      apiMs.push(performance.now() - started);
      started = performance.now();
      expect((await exec(victim.id, 'echo neighbour alive')).output).toBe('neighbour alive\n');
      execMs.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 250));
    } while (!done);
    expect(Math.max(...apiMs)).toBeLessThan(3000);
    expect(Math.max(...execMs)).toBeLessThan(10_000);
    return settled;
  };

  beforeAll(async () => {
    t = await startApp('sqlite', {}, { runtime });
    key = (await t.signupOnPlan('team')).key;
    victim = await create({});
    neighbour = await create({});
    // The neighbour listens; the victim must not reach it.
    await exec(neighbour.id, 'nohup python3 -m http.server 8000 >/dev/null 2>&1 & sleep 1');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('cannot read host files', async () => {
    const reply = await exec(victim.id, `cat /tmp/${marker}; cat /proc/1/root/tmp/${marker}; ls /tmp`);
    expect(reply.stdout).not.toContain('host secret');
    expect(reply.stdout).not.toContain(marker);
  });

  it('cannot see host processes', async () => {
    const reply = await exec(victim.id, 'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " "; echo; ls /proc | grep -c "^[0-9]"');
    expect(reply.stdout).not.toContain(marker);
    expect(Number(reply.stdout.trim().split('\n').at(-1))).toBeLessThan(20);
  });

  it('cannot load kernel modules', async () => {
    const reply = await exec(victim.id, `python3 -c "import ctypes; libc = ctypes.CDLL(None, use_errno=True); print(libc.init_module(None, 0, b''), ctypes.get_errno())"`);
    expect(reply.stdout.split(' ')[0]).toBe('-1');
  });

  it('cannot mount filesystems', async () => {
    const reply = await exec(victim.id, 'mkdir -p /tmp/m; mount -t tmpfs none /tmp/m && echo mounted; mount -t proc proc /tmp/m && echo mounted-proc; true');
    expect(reply.stdout).not.toContain('mounted');
  });

  it("cannot reach the host's services on any host address, nor the Paddock API", async () => {
    const gateway = victim.ip.replace(/\.\d+$/, '.1');
    const apiPort = Number(new URL(t.url).port);
    const results = await probe(victim.id, [
      [gateway, hostPort],
      [gateway, apiPort],
      [WORLD.hostAddress, hostPort],
      ['127.0.0.1', hostPort],
    ]);
    expect(results).toEqual(['blocked', 'blocked', 'blocked', 'blocked']);
  });

  it('cannot reach another sandbox, while the host can', async () => {
    expect((await fetch(`http://${neighbour.ip}:8000/`)).status).toBe(200);
    expect(await probe(victim.id, [[neighbour.ip, 8000]])).toEqual(['blocked']);
  });

  it('reaches the outside world in full mode, only the allowlist in allowlist mode, nothing in none mode', async () => {
    expect(
      await probe(victim.id, [
        [WORLD.serverA, 443],
        [WORLD.serverB, 443],
      ]),
    ).toEqual(['open', 'open']);
    const listed = await create({ network_mode: 'allowlist', allowlist: [WORLD.serverA] });
    expect(
      await probe(listed.id, [
        [WORLD.serverA, 443],
        [WORLD.serverB, 443],
      ]),
    ).toEqual(['open', 'blocked']);
    const isolated = await create({ network_mode: 'none' });
    expect(await probe(isolated.id, [[WORLD.serverA, 443]])).toEqual(['blocked']);
    await t.request('DELETE', `/v1/sandboxes/${listed.id}`, { token: key });
    await t.request('DELETE', `/v1/sandboxes/${isolated.id}`, { token: key });
  });

  // runc: the kernel OOM-kills the process inside the sandbox's memory cgroup and the sandbox lives on.
  // gVisor: guest processes live inside one host process (the Sentry) in that cgroup, so the OOM killer
  // ends the whole sandbox, which is then reported as `error`. Either way the host is untouched.
  it('cannot exhaust host memory: an allocation past memory_mb dies inside the sandbox', async () => {
    const target = await create({ network_mode: 'none' });
    const reply = await whileBombing(exec(target.id, 'python3 -c "b = bytearray(700 * 1024 * 1024); print(len(b))"'));
    expect(reply.exit_code).not.toBe(0);
    if (runtime === 'runc') {
      expect((await exec(target.id, 'echo alive')).output).toBe('alive\n');
    } else {
      const after = await exec(target.id, 'echo alive');
      expect(after).toMatchObject({ exit_code: 1, error: expect.stringMatching(/not running|stopped|error/) });
      expect((await t.request('GET', `/v1/sandboxes/${target.id}`, { token: key })).body.status).toBe('error');
    }
    expect((await exec(victim.id, 'echo neighbour alive')).output).toBe('neighbour alive\n');
  });

  // runc caps processes with the pids cgroup. gVisor runs guest processes as Sentry tasks, not host
  // processes: the host's process table is never touched, and the sandbox's memory limit bounds the bomb.
  it('cannot exhaust host processes: a fork bomb stays inside', async () => {
    // With room in memory, runc shows the pids limit at work; under gVisor the memory limit is the bound.
    const target = await create({ network_mode: 'none', memory_mb: runtime === 'runc' ? 2048 : 256 });
    const reply = await whileBombing(exec(target.id, `python3 -c '${FORK_BOMB}'`, 30));
    const forked = Number(reply.stdout.trim().split('\n')[0]);
    if (runtime === 'runc') {
      expect(forked).toBeGreaterThan(0);
      expect(forked).toBeLessThan(5000);
      expect((await exec(target.id, 'echo alive')).output).toBe('alive\n');
    }
    const hostProcesses = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
    expect(hostProcesses).toBeLessThan(4000);
    expect((await exec(victim.id, 'echo neighbour alive')).output).toBe('neighbour alive\n');
    await t.request('DELETE', `/v1/sandboxes/${target.id}`, { token: key });
  }, 120_000);

  it('cannot exhaust host disk: writing past disk_gb fails inside', async () => {
    const target = await create({ network_mode: 'none' });
    const reply = await whileBombing(exec(target.id, 'dd if=/dev/zero of=/workspace/fill bs=1M count=1500 2>&1; echo "exit $?"', 120));
    expect(reply.stdout).toMatch(/No space left on device/);
    expect((await exec(target.id, 'rm -f /workspace/fill; echo alive')).output).toBe('alive\n');
    await t.request('DELETE', `/v1/sandboxes/${target.id}`, { token: key });
  });
});
