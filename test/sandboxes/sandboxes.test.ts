// The sandbox API end to end: real runtimes (runc and gVisor), real storage (SQLite and PostgreSQL).
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitForSandboxStatus } from '../helpers/sandboxes.js';
import { ndjsonLines } from '../helpers/ndjson.js';

const TEMPLATE = 'python-311';
const RUNTIMES = ['runc', 'gvisor'] as const;
const COMBOS = RUNTIMES.flatMap((runtime) => BACKENDS.map((backend) => [runtime, backend] as const));

describe.each(COMBOS)('sandboxes on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;
  let sandbox: { id: string };

  const exec = (id: string, command: string, extra: object = {}) => t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command, ...extra } });
  const create = (body: object, token = key) => t.request('POST', '/v1/sandboxes', { token, body: { template: TEMPLATE, ...body } });

  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime });
    key = (await t.signupOnPlan('team')).key;
    const reply = await create({ cpus: 1, memory_mb: 256, disk_gb: 1, env: { GREETING: 'hello from env' } });
    expect(reply.status).toBe(201);
    sandbox = reply.body;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates a running sandbox and answers with the spec fields', async () => {
    const body = (await t.request('GET', `/v1/sandboxes/${sandbox.id}`, { token: key })).body;
    expect(body).toMatchObject({ id: sandbox.id, status: 'running', template: TEMPLATE, cpus: 1, memory_mb: 256, disk_gb: 1, network_mode: 'full', runtime, error: null });
    expect(body.id).toMatch(/^sbx_/);
    expect(body.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(body.env).toEqual({ GREETING: 'hello from env' });
  });

  it('runs commands with /bin/sh in /workspace, with the env, and the sandbox id as hostname', async () => {
    const reply = await exec(sandbox.id, 'echo "$GREETING"; pwd; hostname');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ exit_code: 0, output: `hello from env\n/workspace\n${sandbox.id}\n` });
    expect(reply.body.error).toBeUndefined();
  });

  it('returns 200 with the exit code and stderr for a failing command', async () => {
    const reply = await exec(sandbox.id, 'echo out; echo broken >&2; exit 3');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ exit_code: 3, output: 'broken\n', stdout: 'out\n', stderr: 'broken\n' });
    expect(reply.body.error).toBeUndefined();
  });

  it('kills a command past its timeout with exit code 124', async () => {
    const reply = await exec(sandbox.id, 'sleep 30', { timeout: 1 });
    expect(reply.body).toMatchObject({ exit_code: 124, timed_out: true });
    expect(reply.body.duration_ms).toBeLessThan(10_000);
  });

  it('caps output at 1 MiB and marks it truncated', async () => {
    const reply = await exec(sandbox.id, 'head -c 3000000 /dev/zero | tr "\\0" x');
    expect(reply.body.exit_code).toBe(0);
    expect(reply.body.truncated).toBe(true);
    expect(reply.body.stdout.length).toBe(1024 * 1024);
  });

  it('streams output as NDJSON with a final exit line', async () => {
    const response = await fetch(`${t.url}/v1/sandboxes/${sandbox.id}/exec/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      // é is cut between two writes (two chunks): it must arrive whole, not as two U+FFFD.
      body: JSON.stringify({ command: "echo one; printf 'caf\\303'; sleep 0.3; printf '\\251\\n'; echo two >&2; exit 4" }),
    });
    expect(response.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = ndjsonLines(await response.text());
    expect(
      lines
        .filter((l) => l.type === 'stdout')
        .map((l) => l.data)
        .join(''),
    ).toBe('one\ncafé\n');
    expect(
      lines
        .filter((l) => l.type === 'stderr')
        .map((l) => l.data)
        .join(''),
    ).toBe('two\n');
    expect(lines.at(-1)).toMatchObject({ type: 'exit', exit_code: 4 });
  });

  it('writes, reads and lists files, creating parent directories', async () => {
    const content = randomBytes(4096);
    const put = await fetch(`${t.url}/v1/sandboxes/${sandbox.id}/files/content?path=nested/dir/blob.bin`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
      body: content,
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ path: '/workspace/nested/dir/blob.bin', size: 4096 });
    const get = await fetch(`${t.url}/v1/sandboxes/${sandbox.id}/files/content?path=/workspace/nested/dir/blob.bin`, { headers: { authorization: `Bearer ${key}` } });
    expect(Buffer.from(await get.arrayBuffer()).equals(content)).toBe(true);
    const list = await t.request('GET', `/v1/sandboxes/${sandbox.id}/files?path=/workspace/nested/dir`, { token: key });
    expect(list.body).toEqual([expect.objectContaining({ name: 'blob.bin', path: '/workspace/nested/dir/blob.bin', type: 'file', size: 4096, mode: '0644' })]);
    expect(new Date(list.body[0].modified_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('enforces the 50 MiB file limits with 413', async () => {
    const big = await fetch(`${t.url}/v1/sandboxes/${sandbox.id}/files/content?path=too-big.bin`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(50 * 1024 * 1024 + 1),
    });
    expect(big.status).toBe(413);
    expect((await exec(sandbox.id, 'truncate -s 60M /tmp/sixty.bin')).body.exit_code).toBe(0);
    const read = await t.request('GET', `/v1/sandboxes/${sandbox.id}/files/content?path=/tmp/sixty.bin`, { token: key });
    expect(read.status).toBe(413);
    expect(read.body.error).toMatch(/larger than/);
  });

  it('limits CPU to the cpus quota: two busy loops in a 1-cpu sandbox get about one core', async () => {
    const before = await t.runtime!.usage(sandbox.id);
    const started = Date.now();
    await exec(sandbox.id, "for i in 1 2; do timeout 2 sh -c 'while :; do :; done' & done; wait");
    const wallSeconds = (Date.now() - started) / 1000;
    const used = (await t.runtime!.usage(sandbox.id)).cpuSeconds - before.cpuSeconds;
    expect(used).toBeGreaterThan(0.5);
    expect(used).toBeLessThan(wallSeconds * 1.3);
  });

  it('answers 404 for a missing path and 400 for listing a file', async () => {
    expect((await t.request('GET', `/v1/sandboxes/${sandbox.id}/files/content?path=/nope`, { token: key })).status).toBe(404);
    expect((await t.request('GET', `/v1/sandboxes/${sandbox.id}/files?path=/etc/hostname`, { token: key })).status).toBe(400);
  });

  it('keeps file access inside the sandbox: .., absolute symlinks and planted symlinks resolve in the sandbox root', async () => {
    const marker = `/tmp/paddock-host-secret-${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(marker, 'host secret');
    try {
      const traversal = await t.request('GET', `/v1/sandboxes/${sandbox.id}/files/content?path=../../../../../../etc/hostname`, { token: key });
      expect(traversal.text.trim()).toBe(sandbox.id);
      expect((await exec(sandbox.id, `ln -sf ${marker} /workspace/planted && ln -sf /proc/1/root${marker} /workspace/via-proc`)).body.exit_code).toBe(0);
      for (const link of ['/workspace/planted', '/workspace/via-proc']) {
        const reply = await t.request('GET', `/v1/sandboxes/${sandbox.id}/files/content?path=${link}`, { token: key });
        expect(reply.status).toBe(404);
        expect(reply.text).not.toContain('host secret');
      }
      const write = await fetch(`${t.url}/v1/sandboxes/${sandbox.id}/files/content?path=/workspace/planted`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
        body: 'overwritten',
      });
      expect(write.status).toBe(200);
      expect(fs.readFileSync(marker, 'utf8')).toBe('host secret');
    } finally {
      fs.rmSync(marker, { force: true });
    }
  });

  it('diffs /workspace against HEAD including untracked files, and says when it is not a repository', async () => {
    const fresh = (await create({ cpus: 1, memory_mb: 256, disk_gb: 1, network_mode: 'none' })).body;
    expect((await t.request('GET', `/v1/sandboxes/${fresh.id}/git/diff`, { token: key })).status).toBe(400);
    const setup = await exec(
      fresh.id,
      ['git init -q . && printf "one\\n" > tracked.txt && git add . && git -c user.name=t -c user.email=t@t commit -qm init', 'printf "two\\n" > tracked.txt && printf "new\\n" > untracked.txt'].join(
        ' && ',
      ),
    );
    expect(setup.body.exit_code).toBe(0);
    const diff = await t.request('GET', `/v1/sandboxes/${fresh.id}/git/diff`, { token: key });
    expect(diff.status).toBe(200);
    expect(diff.body.diff).toContain('-one');
    expect(diff.body.diff).toContain('+two');
    expect(diff.body.diff).toContain('+new');
    expect(diff.body.files).toEqual(
      expect.arrayContaining([
        { path: 'tracked.txt', status: 'modified' },
        { path: 'untracked.txt', status: 'added' },
      ]),
    );
    // The user's own index is untouched: untracked.txt is still untracked.
    expect((await exec(fresh.id, 'git status --porcelain untracked.txt')).body.output).toBe('?? untracked.txt\n');
    expect((await t.request('DELETE', `/v1/sandboxes/${fresh.id}`, { token: key })).status).toBe(204);
  });

  it('runs init_script during set-up: creating, then running with its effect', async () => {
    const reply = await create({ network_mode: 'none', init_script: 'sleep 1; echo ready > /workspace/ready.txt' });
    expect(reply.status).toBe(201);
    expect(reply.body.status).toBe('creating');
    const done = await waitForSandboxStatus(t, key, reply.body.id, ['running', 'error']);
    expect(done.status).toBe('running');
    expect((await exec(reply.body.id, 'cat ready.txt')).body.output).toBe('ready\n');
    await t.request('DELETE', `/v1/sandboxes/${reply.body.id}`, { token: key });
  });

  it('leaves a sandbox whose set-up fails in status error with a readable reason', async () => {
    const reply = await create({ network_mode: 'none', init_script: 'echo "cannot continue" >&2; exit 7' });
    const done = await waitForSandboxStatus(t, key, reply.body.id, ['running', 'error']);
    expect(done.status).toBe('error');
    expect(done.error).toBe('init_script exited with 7: cannot continue');
    const execReply = await exec(reply.body.id, 'true');
    expect(execReply.body).toMatchObject({ exit_code: 1, error: expect.stringContaining('error') });
    await t.request('DELETE', `/v1/sandboxes/${reply.body.id}`, { token: key });
  });

  it('destroys a sandbox: 204, every trace gone, and exec answers with an infrastructure error', async () => {
    const reply = await create({ network_mode: 'none' });
    const id = reply.body.id;
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
    const after = (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
    expect(after.status).toBe('destroyed');
    expect(after.destroyed_at).not.toBeNull();
    expect(await exec(id, 'true').then((r) => r.body)).toMatchObject({ exit_code: 1, error: 'sandbox is destroyed' });
    expect(fs.readFileSync('/proc/self/mounts', 'utf8')).not.toContain(id);
    expect((fs.existsSync('/run/netns') ? fs.readdirSync('/run/netns') : []).filter((name) => name.includes(id))).toEqual([]);
    expect(fs.existsSync(`${t.config.dataDir}/sandboxes/${id}`)).toBe(false);
    const list = await t.request('GET', '/v1/sandboxes', { token: key });
    expect(list.body.map((s: any) => s.id)).not.toContain(id);
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
  });

  it("answers 404 for another account's sandbox on every endpoint", async () => {
    const other = (await t.signup()).key;
    const id = sandbox.id;
    const calls: [string, string, object?][] = [
      ['GET', `/v1/sandboxes/${id}`],
      ['DELETE', `/v1/sandboxes/${id}`],
      ['POST', `/v1/sandboxes/${id}/exec`, { command: 'true' }],
      ['GET', `/v1/sandboxes/${id}/files?path=/`],
      ['GET', `/v1/sandboxes/${id}/files/content?path=/etc/hostname`],
      ['GET', `/v1/sandboxes/${id}/git/diff`],
    ];
    for (const [method, path, body] of calls) expect((await t.request(method, path, { token: other, body })).status).toBe(404);
    expect((await t.request('GET', '/v1/sandboxes', { token: other })).body).toEqual([]);
    expect((await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body.status).toBe('running');
  });

  it('lets a sandbox-scope key manage sandboxes and a read-scope key only read them', async () => {
    const sandboxKey = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 's', scope: 'sandbox' } })).body.key;
    const readKey = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'r', scope: 'read' } })).body.key;
    expect((await t.request('GET', '/v1/sandboxes', { token: sandboxKey })).status).toBe(200);
    expect((await t.request('POST', `/v1/sandboxes/${sandbox.id}/exec`, { token: sandboxKey, body: { command: 'true' } })).status).toBe(200);
    expect((await t.request('GET', `/v1/sandboxes/${sandbox.id}`, { token: readKey })).status).toBe(200);
    expect((await t.request('POST', `/v1/sandboxes/${sandbox.id}/exec`, { token: readKey, body: { command: 'true' } })).status).toBe(403);
    expect((await t.request('POST', '/v1/sandboxes', { token: readKey, body: { template: TEMPLATE } })).status).toBe(403);
  });

  it('lists templates with readiness and refuses a template that is not ready, saying how to fix it', async () => {
    const templates = (await t.request('GET', '/v1/templates', { token: key })).body;
    expect(templates.find((x: any) => x.name === TEMPLATE).ready).toBe(true);
    const python312 = templates.find((x: any) => x.name === 'python-312');
    expect(python312.ready).toBe(false);
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-312' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatch(/python-312 is not ready.*templates import/);
  });
});

describe.each(BACKENDS)('sandbox limits on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime: 'runc' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('enforces the free plan limit of 2 concurrent sandboxes with 403', async () => {
    const { key } = await t.signup();
    const body = { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 128, disk_gb: 1 };
    const created = await Promise.all([0, 1, 2].map(() => t.request('POST', '/v1/sandboxes', { token: key, body })));
    expect(created.map((r) => r.status).sort()).toEqual([201, 201, 403]);
    expect(created.find((r) => r.status === 403)!.body.error).toMatch(/free plan allows 2 concurrent sandboxes/);
    const first = created.find((r) => r.status === 201)!.body.id;
    expect((await t.request('DELETE', `/v1/sandboxes/${first}`, { token: key })).status).toBe(204);
    expect((await t.request('POST', '/v1/sandboxes', { token: key, body })).status).toBe(201);
  });
});
