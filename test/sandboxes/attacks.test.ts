// The attack battery of issue 16, run through the public API against real sandboxes on both runtimes:
// host files by every path (also through the files API and the host's own writes at a restore), host
// processes, kernel settings, device nodes, forged frames on the bridge (another source IP or MAC, ARP,
// IPv6 router adverts), hijacking a neighbour's traffic, the host's services, metadata, other sandboxes
// (same and other account), and every route of another account's sandbox. security.test.ts holds the
// first attacks (mounts, modules, bombs); test/runtime/network/ the same rules at the network layer.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/runtime/network/command.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createWorld, WORLD, type World } from '../helpers/world.js';
import { FRAME_ATTACK, HIJACK_ATTACK, HOST_CAPTURE } from '../helpers/frame-attacks.js';

const RUNTIMES = ['runc', 'gvisor'] as const;
// An ECS-style metadata endpoint the test routes into the world: the host reaches it, sandboxes must not.
const METADATA = '169.254.170.2';

let world: World;
let hostServer: http.Server;
let hostPort: number;
let metadataServer: ChildProcess;
const marker = `paddock-attack-${randomBytes(4).toString('hex')}`;
const hostFile = `/tmp/${marker}`;

beforeAll(async () => {
  world = await createWorld();
  hostServer = http.createServer((_request, response) => response.end('host service'));
  await new Promise<void>((resolve) => hostServer.listen(0, '0.0.0.0', resolve));
  hostPort = (hostServer.address() as AddressInfo).port;
  fs.writeFileSync(hostFile, 'host secret');
  fs.writeFileSync(`${hostFile}-hosts`, 'host original');
  await runCommand('ip', ['-n', WORLD.netns, 'addr', 'add', `${METADATA}/32`, 'dev', 'eth0']);
  await runCommand('ip', ['route', 'replace', `${METADATA}/32`, 'via', WORLD.serverA]);
  const serve = `require('http').createServer((q, s) => s.end('metadata')).listen(80, '${METADATA}', () => console.log('ready'))`;
  metadataServer = spawn('nsenter', [`--net=/run/netns/${WORLD.netns}`, '--', process.execPath, '-e', serve], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => metadataServer.stdout!.once('data', resolve));
});

afterAll(async () => {
  metadataServer?.kill('SIGKILL');
  await runCommand('ip', ['route', 'del', `${METADATA}/32`]);
  for (const suffix of ['', '-hosts', '-planted', '-planted2', '-resolv', '-dir']) fs.rmSync(`${hostFile}${suffix}`, { recursive: true, force: true });
  await new Promise((resolve) => hostServer?.close(resolve));
  await world?.close();
});

/** Python run inside the sandbox: tries every target at once, prints "open" or "blocked" per target. */
function connectScript(targets: [string, number][]): string {
  return [
    'import socket, threading',
    `targets = ${JSON.stringify(targets)}`,
    'results = ["blocked"] * len(targets)',
    'def attempt(index, host, port):',
    '    try:',
    '        socket.create_connection((host, port), 2).close()',
    '        results[index] = "open"',
    '    except Exception:',
    '        pass',
    'threads = [threading.Thread(target=attempt, args=(index, host, port)) for index, (host, port) in enumerate(targets)]',
    'for thread in threads: thread.start()',
    'for thread in threads: thread.join()',
    'print(*results, sep=chr(10))',
  ].join('\n');
}

/** Captures frames reaching the host's side of the bridge while `during` runs; counts markers and ARP senders. */
async function captureOnHost(bridge: string, seconds: number, markers: string[], during: () => Promise<unknown>): Promise<Record<string, number>> {
  const capture = spawn('python3', ['-c', HOST_CAPTURE, bridge, String(seconds), JSON.stringify(markers)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  capture.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  await new Promise<void>((resolve) => capture.stdout!.once('data', () => resolve()));
  await during();
  await new Promise((resolve) => capture.once('exit', resolve));
  return JSON.parse(output.split('\n').filter(Boolean).at(-1)!);
}

describe.each(RUNTIMES)('attacks under %s', (runtime) => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  let attacker: any;
  let neighbour: any;
  let foreign: any;
  let gateway: string;
  let bridge: string;

  const create = async (token: string, body: object = {}) => {
    const reply = await t.request('POST', '/v1/sandboxes', { token, body: { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1, ...body } });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const exec = async (id: string, command: string, timeout = 60, token = key) => (await t.request('POST', `/v1/sandboxes/${id}/exec`, { token, body: { command, timeout } })).body;
  const python = async (id: string, script: string, args: string[] = [], timeout = 60) =>
    exec(id, `echo ${Buffer.from(script).toString('base64')} | base64 -d > /tmp/attack.py && python3 /tmp/attack.py ${args.map((arg) => `'${arg}'`).join(' ')}`, timeout);
  const connect = async (id: string, targets: [string, number][], token = key) => (await exec(id, `python3 -c '${connectScript(targets)}'`, 60, token)).stdout.trim().split('\n');
  const macOf = async (id: string) => (await exec(id, 'cat /sys/class/net/eth0/address')).stdout.trim();

  beforeAll(async () => {
    t = await startApp('sqlite', {}, { runtime });
    key = (await t.signupOnPlan('team')).key;
    otherKey = (await t.signupOnPlan('team')).key;
    [attacker, neighbour, foreign] = await Promise.all([create(key), create(key), create(otherKey)]);
    await exec(neighbour.id, 'nohup python3 -m http.server 8000 >/dev/null 2>&1 & sleep 1');
    await exec(foreign.id, 'nohup python3 -m http.server 8000 >/dev/null 2>&1 & sleep 1', 60, otherKey);
    const route = JSON.parse((await runCommand('ip', ['-j', 'route', 'get', attacker.ip])).stdout)[0];
    bridge = route.dev;
    gateway = route.prefsrc;
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('host files', () => {
    it('cannot read them by /proc/1/root, /proc/self/root, symlinks or ../', async () => {
      const reply = await exec(
        attacker.id,
        [
          `cat ${hostFile} /proc/1/root${hostFile} /proc/self/root${hostFile} /proc/1/cwd/../../..${hostFile}`,
          `ln -sf ${hostFile} /workspace/link && cat /workspace/link`,
          `ln -sf /proc/1/root${hostFile} /workspace/link2 && cat /workspace/link2`,
          `cat /workspace/../../../../..${hostFile}`,
          'ls /proc/1/root/tmp /tmp',
        ].join('; '),
      );
      expect(reply.stdout).not.toContain('host secret');
      expect(reply.stdout).not.toContain(marker);
    });

    it('cannot reach them through a leaked descriptor as the working directory (cwd /proc/self/fd/N, CVE-2024-21626)', async () => {
      for (let fd = 3; fd <= 12; fd++) {
        const reply = await t.request('POST', `/v1/sandboxes/${attacker.id}/exec`, {
          token: key,
          body: { command: `cat ../../../..${hostFile}; ls ../../../../tmp`, cwd: `/proc/self/fd/${fd}` },
        });
        expect(reply.status).toBe(200);
        expect(reply.body.stdout).not.toContain('host secret');
        expect(reply.body.stdout).not.toContain(marker);
      }
    });

    it('cannot read or write them through the files API', async () => {
      const paths = [`../../../../..${hostFile}`, `/proc/1/root${hostFile}`, `/proc/self/root${hostFile}`, 'link', 'link2'];
      for (const path of paths) {
        const reply = await t.request('GET', `/v1/sandboxes/${attacker.id}/files/content?path=${encodeURIComponent(path)}`, { token: key });
        expect(reply.status).toBeLessThan(500);
        expect(reply.text).not.toContain('host secret');
      }
      const listing = await t.request('GET', `/v1/sandboxes/${attacker.id}/files?path=${encodeURIComponent('/proc/1/root/tmp')}`, { token: key });
      expect(listing.text).not.toContain(marker);
      for (const [path, planted] of [
        [`../../../../..${hostFile}-planted`, `${hostFile}-planted`],
        [`/proc/1/root${hostFile}-planted2`, `${hostFile}-planted2`],
      ]) {
        const reply = await t.request('PUT', `/v1/sandboxes/${attacker.id}/files/content?path=${encodeURIComponent(path)}`, {
          token: key,
          raw: 'planted',
          contentType: 'application/octet-stream',
        });
        expect(reply.status).toBeLessThan(500);
        expect(fs.existsSync(planted)).toBe(false);
      }
      expect(fs.readFileSync(hostFile, 'utf8')).toBe('host secret');
    });

    it("cannot redirect the host's own writes at a restore (/etc/hosts, /etc/resolv.conf, /etc as symlinks out)", async () => {
      const target = await create(key, { network_mode: 'none' });
      fs.mkdirSync(`${hostFile}-dir`, { recursive: true });
      await exec(target.id, [`rm -f /etc/hosts /etc/resolv.conf && ln -s ${hostFile}-hosts /etc/hosts && ln -s /proc/1/root${hostFile}-resolv /etc/resolv.conf`].join(' && '));
      const snapshot = await t.request('POST', `/v1/sandboxes/${target.id}/snapshots`, { token: key, body: { name: 'symlinks out' } });
      expect(snapshot.status).toBe(201);
      const restored = await t.request('POST', `/v1/snapshots/${snapshot.body.id}/restore`, { token: key, body: { sandbox_id: target.id } });
      expect(restored.status).toBe(200);
      expect(fs.readFileSync(`${hostFile}-hosts`, 'utf8')).toBe('host original');
      expect(fs.existsSync(`${hostFile}-resolv`)).toBe(false);
      // /etc itself a symlink to a host directory: the host's writes must land nowhere outside.
      await exec(target.id, `rm -rf /etc && ln -s ${hostFile}-dir /etc`);
      const again = await t.request('POST', `/v1/sandboxes/${target.id}/snapshots`, { token: key, body: { name: 'etc out' } });
      expect(again.status).toBe(201);
      const second = await t.request('POST', `/v1/snapshots/${again.body.id}/restore`, { token: key, body: { sandbox_id: target.id } });
      expect(second.status).toBe(200);
      expect(fs.readdirSync(`${hostFile}-dir`)).toEqual([]);
      expect(fs.readFileSync(`${hostFile}-hosts`, 'utf8')).toBe('host original');
      expect((await exec(target.id, 'echo restored')).stdout).toBe('restored\n');
      await t.request('DELETE', `/v1/sandboxes/${target.id}`, { token: key });
    }, 120_000);
  });

  describe('host processes and kernel', () => {
    it('cannot see or signal host processes', async () => {
      const host = spawn('sleep', ['600'], { argv0: marker, stdio: 'ignore' });
      try {
        const reply = await exec(attacker.id, `cat /proc/[0-9]*/cmdline | tr "\\0" " "; kill -9 ${host.pid} 2>&1; echo "kill=$?"`);
        expect(reply.stdout).not.toContain(marker);
        expect(reply.stdout).not.toContain('kill=0');
        expect(host.exitCode).toBeNull();
        expect(host.signalCode).toBeNull();
        expect(() => process.kill(host.pid!, 0)).not.toThrow();
        expect(fs.readFileSync(`/proc/${host.pid}/cmdline`, 'utf8')).toContain(marker);
      } finally {
        host.kill('SIGKILL');
      }
    });

    it('cannot load modules or change kernel settings (insmod, modprobe, /proc/sys, core_pattern)', async () => {
      const corePattern = fs.readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
      const reply = await exec(
        attacker.id,
        [
          'for m in /lib/modules/*/kernel/net/*/*.ko*; do insmod "$m" 2>&1 && echo "insmod=0"; break; done',
          'modprobe dummy 2>&1 && echo "modprobe=0"',
          `echo '|/bin/sh -c "touch ${hostFile}-planted"' > /proc/sys/kernel/core_pattern 2>&1 || echo "core_pattern refused"`,
          'echo 0 > /proc/sys/kernel/randomize_va_space 2>&1 || echo "aslr refused"',
          'echo 1 > /proc/sys/net/ipv4/ip_forward 2>&1 || echo "forward refused"',
          'true',
        ].join('; '),
      );
      expect(reply.stdout).not.toMatch(/insmod=0|modprobe=0/);
      expect(reply.stdout).toContain('core_pattern refused');
      expect(reply.stdout).toContain('aslr refused');
      expect(fs.readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(corePattern);
      expect(fs.readFileSync('/proc/sys/kernel/randomize_va_space', 'utf8').trim()).not.toBe('0');
    });

    it('cannot mount or remount anything (proc, tmpfs, overlay, bind, remount /)', async () => {
      const reply = await exec(
        attacker.id,
        [
          'mkdir -p /tmp/m /tmp/l /tmp/u /tmp/w',
          'mount -t proc proc /tmp/m && echo mounted',
          'mount -t tmpfs none /tmp/m && echo mounted',
          'mount -t overlay overlay -o lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w /tmp/m && echo mounted',
          'mount --bind / /tmp/m && echo mounted',
          'mount -o remount,rw /proc/sys && echo mounted',
          'mount -o remount,rw /sys && echo mounted',
          'true',
        ].join('; '),
      );
      expect(reply.stdout).not.toContain('mounted');
    });

    it('cannot reach host devices (mknod of memory, kmsg and disks, dmesg)', async () => {
      const reply = await exec(
        attacker.id,
        [
          'cd /tmp',
          'for spec in "mem c 1 1" "kmem c 1 2" "port c 1 4" "kmsg c 1 11" "sda b 8 0" "vda b 253 0" "nvme b 259 0" "loop0 b 7 0" "dm0 b 252 0"; do',
          '  set -- $spec; rm -f dev-$1; mknod dev-$1 $2 $3 $4 2>/dev/null; head -c 16 dev-$1 >/dev/null 2>&1 && echo "read $1"',
          'done',
          'head -c 16 /dev/kmsg >/dev/null 2>&1 && echo "read /dev/kmsg"',
          // gVisor's dmesg is the Sentry's own log; the host kernel's starts with "Linux version".
          'dmesg 2>&1 | head -3 | sed "s/^/dmesg: /"',
          'ls /dev',
        ].join('\n'),
      );
      expect(reply.stdout).not.toMatch(/^read /m);
      expect(reply.stdout).not.toMatch(/^dmesg: .*Linux version/m);
      expect(reply.stdout).not.toMatch(/\b(sda|vda|nvme0n1|mem|kmsg)\b/);
    });
  });

  // Under gVisor the same flood wedges the flooding sandbox's own runsc control channel (`runsc state` and
  // `delete` stop answering); the destroy must still go through, within the runtime commands' deadlines.
  it("cannot exhaust the server's descriptors by connecting to its agent socket without end, nor outlive a destroy", async () => {
    const flood = [
      'import os, resource, socket, time',
      'for _ in range(12):',
      '    if os.fork() == 0:',
      '        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)',
      '        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))',
      '        held = []',
      '        try:',
      '            for _ in range(2000):',
      '                connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
      '                connection.connect("/.paddock/run/agent.sock")',
      '                held.append(connection)',
      '        except OSError:',
      '            pass',
      '        time.sleep(8)',
      '        os._exit(0)',
      'while True:',
      '    try:',
      '        os.wait()',
      '    except ChildProcessError:',
      '        break',
    ].join('\n');
    const flooder = await create(key, { network_mode: 'none' });
    const before = fs.readdirSync('/proc/self/fd').length;
    const flooding = python(flooder.id, flood, [], 30);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(fs.readdirSync('/proc/self/fd').length).toBeLessThan(before + 500);
    expect((await t.request('GET', '/v1/account', { token: key })).status).toBe(200);
    expect((await exec(neighbour.id, 'echo neighbour alive')).stdout).toBe('neighbour alive\n');
    await flooding;
    expect(fs.readdirSync('/proc/self/fd').length).toBeLessThan(before + 100);
    const started = performance.now();
    expect((await t.request('DELETE', `/v1/sandboxes/${flooder.id}`, { token: key })).status).toBe(204);
    expect(performance.now() - started).toBeLessThan(30_000);
  }, 90_000);

  describe('the bridge', () => {
    it('drops frames with another source IP or MAC, forged ARP and IPv6 router adverts (the host sees only honest frames)', async () => {
      const neighbourMac = await macOf(neighbour.id);
      const port = 40_000 + Math.floor(Math.random() * 20_000);
      const tag = randomBytes(4).toString('hex');
      const markers = ['legit', 'spoof-ip', 'spoof-ip-l2', 'spoof-mac', 'ipv6-ra', 'ipv6-ll'].map((name) => `${tag}-${name}`);
      let attack: any;
      const seen = await captureOnHost(bridge, 4, markers, async () => {
        attack = await python(attacker.id, FRAME_ATTACK, [tag, attacker.ip, gateway, neighbour.ip, neighbourMac, String(port)]);
      });
      expect(attack.stderr).toBe('');
      // The control: an honest datagram reaches the host's side of the bridge (the host then drops it).
      expect(seen[`${tag}-legit`]).toBeGreaterThan(0);
      for (const name of ['spoof-ip', 'spoof-ip-l2', 'spoof-mac', 'ipv6-ra', 'ipv6-ll']) expect({ [name]: seen[`${tag}-${name}`] }).toEqual({ [name]: 0 });
      expect(seen[`arp:${neighbourMac}:${attacker.ip}`] ?? 0).toBe(0);
      // Under runc root may open raw sockets (CAP_NET_RAW); gVisor refuses them without --net-raw.
      const sockets = JSON.parse(attack.stdout);
      if (runtime === 'runc') expect(sockets).toEqual({ raw_ip: 'sent', packet: 'sent' });
      else expect([sockets.raw_ip, sockets.packet]).not.toContain('sent');
    });

    it("cannot draw a neighbour's traffic to itself by sending with the neighbour's MAC", async () => {
      const neighbourMac = await macOf(neighbour.id);
      const sniffing = python(attacker.id, HIJACK_ATTACK, [attacker.ip, gateway, neighbourMac]);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const answers: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`http://${neighbour.ip}:8000/`, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.status,
          () => 0,
        );
        answers.push(response);
      }
      const result = JSON.parse((await sniffing).stdout);
      expect(answers).toEqual([200, 200, 200, 200, 200]);
      expect(result.frames_for_neighbour).toBe(0);
    });
  });

  describe('the network', () => {
    it("cannot reach the host's services: loopback, bridge address, the API, PostgreSQL, any other host port", async () => {
      const apiPort = Number(new URL(t.url).port);
      const primary = JSON.parse((await runCommand('ip', ['-j', 'route', 'get', '198.51.100.10'])).stdout)[0]?.prefsrc as string;
      const targets: [string, number][] = [
        [gateway, hostPort],
        [gateway, apiPort],
        [gateway, 5432],
        [gateway, 22],
        ['127.0.0.1', hostPort],
        ['127.0.0.1', apiPort],
        ['127.0.0.1', 5432],
        [primary, hostPort],
        [primary, 5432],
        [WORLD.hostAddress, hostPort],
      ];
      expect(await connect(attacker.id, targets)).toEqual(targets.map(() => 'blocked'));
      // The control: the host itself answers on those addresses.
      expect((await fetch(`http://${gateway}:${hostPort}/`)).status).toBe(200);
    });

    it('reaches the state gateway port, which answers nothing without a run token', async () => {
      const port = t.config.pipelines.stateGatewayPort;
      const reply = await exec(
        attacker.id,
        `python3 -c "import urllib.request as u
try: u.urlopen('http://${gateway}:${port}/v1/state', timeout=3)
except Exception as e: print(getattr(e, 'code', e))"`,
      );
      expect(reply.stdout.trim()).toBe('401');
    });

    it('cannot reach cloud metadata addresses, which the host reaches', async () => {
      expect(await (await fetch(`http://${METADATA}/`)).text()).toBe('metadata');
      expect(
        await connect(attacker.id, [
          [METADATA, 80],
          ['169.254.169.254', 80],
        ]),
      ).toEqual(['blocked', 'blocked']);
    });

    it('cannot reach another sandbox of its own account or of another account, which the host reaches', async () => {
      expect((await fetch(`http://${neighbour.ip}:8000/`)).status).toBe(200);
      expect((await fetch(`http://${foreign.ip}:8000/`)).status).toBe(200);
      expect(
        await connect(attacker.id, [
          [neighbour.ip, 8000],
          [foreign.ip, 8000],
        ]),
      ).toEqual(['blocked', 'blocked']);
      expect(
        await connect(
          foreign.id,
          [
            [attacker.ip, 8000],
            [neighbour.ip, 8000],
          ],
          otherKey,
        ),
      ).toEqual(['blocked', 'blocked']);
    });

    it('in allowlist mode reaches only the listed address: no other IP literal, no metadata, no neighbour', async () => {
      const listed = await create(key, { network_mode: 'allowlist', allowlist: [WORLD.serverA] });
      try {
        expect(
          await connect(listed.id, [
            [WORLD.serverA, 443],
            [WORLD.serverB, 443],
            [METADATA, 80],
            [neighbour.ip, 8000],
            [gateway, hostPort],
          ]),
        ).toEqual(['open', 'blocked', 'blocked', 'blocked', 'blocked']);
        // Pointing a name at another address inside the sandbox changes nothing: the rules hold addresses.
        await exec(listed.id, `echo "${WORLD.serverB} ${WORLD.serverA.replace(/\./g, '-')}.allowed.test" >> /etc/hosts`);
        expect(await connect(listed.id, [[`${WORLD.serverA.replace(/\./g, '-')}.allowed.test`, 443]])).toEqual(['blocked']);
      } finally {
        await t.request('DELETE', `/v1/sandboxes/${listed.id}`, { token: key });
      }
    });
  });

  it("answers 404 on every route of another account's sandbox, as for one that does not exist", async () => {
    const snapshot = await t.request('POST', `/v1/sandboxes/${attacker.id}/snapshots`, { token: key, body: { name: 'mine' } });
    expect(snapshot.status).toBe(201);
    const document = (await t.request('GET', '/openapi.json')).body;
    const bodies: Record<string, unknown> = {
      exec: { command: 'true' },
      stream: { command: 'true' },
      protect: { password: 'long enough password' },
      snapshots: { name: 'theirs' },
      processes: { command: 'true' },
      stdin: { data: 'x' },
      signal: { signal: 'SIGKILL' },
    };
    const routes = Object.entries<Record<string, unknown>>(document.paths)
      .filter(([path]) => path.startsWith('/v1/sandboxes/{id}'))
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => [method.toUpperCase(), path] as const));
    expect(routes.length).toBeGreaterThanOrEqual(18);
    for (const [method, path] of routes) {
      const concrete = path.replace('{id}', attacker.id).replace('{port}', '8000').replace('{pid}', 'proc_01m8ghrzg1teh4ndxsh2byq7fj') + (path.includes('/files') ? '?path=%2Fetc%2Fhostname' : '');
      const last = path.split('/').at(-1)!;
      const options =
        method === 'PUT' ? { token: otherKey, raw: 'overwritten', contentType: 'application/octet-stream' } : { token: otherKey, body: method === 'POST' ? (bodies[last] ?? {}) : undefined };
      const reply = await t.request(method, concrete, options);
      expect({ route: `${method} ${path}`, status: reply.status }).toEqual({ route: `${method} ${path}`, status: 404 });
      expect(reply.text).not.toContain(attacker.id.slice(4) + '"status"');
    }
    // Nothing happened to it: still running, its file intact, no snapshot of the other account's.
    expect((await t.request('GET', `/v1/sandboxes/${attacker.id}`, { token: key })).body.status).toBe('running');
    expect((await exec(attacker.id, 'cat /etc/hostname')).stdout.trim()).toBe(attacker.id);
    expect((await t.request('GET', `/v1/sandboxes/${attacker.id}/snapshots`, { token: key })).body.map((s: any) => s.name)).toEqual(['mine']);
    expect((await t.request('GET', `/v1/snapshots/${snapshot.body.id}`, { token: otherKey })).status).toBe(404);
    expect((await t.request('POST', `/v1/snapshots/${snapshot.body.id}/restore`, { token: otherKey, body: { sandbox_id: foreign.id } })).status).toBe(404);
  }, 120_000);
});
