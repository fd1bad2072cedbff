// Three real `paddock serve` nodes on one PostgreSQL, each in a network namespace of its own with its
// own sandbox bridge, subnet and data dir (test/helpers/node-namespaces.ts): node A `--role api`, B and
// C `--role worker`. Creates through A spread over B and C within their capacity; every sandbox-bound
// route sent to A reaches the sandbox's worker; a worker killed during a pipeline stage, a worker cut
// off by nftables and an api node killed mid-stream end as docs/scale-out.md says.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createPgDatabase } from '../../helpers/backends.js';
import { BRIDGE_ADDRESS, NodeNamespaces, type NamespaceNode } from '../../helpers/node-namespaces.js';
import { waitFor } from '../../helpers/wait-for.js';
import { follow, textOf } from '../../processes/follow.js';
import { ndjsonLines } from '../../helpers/ndjson.js';

const LIVE = ['creating', 'running', 'paused', 'restoring'];
const SANDBOX = { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1 };
const FINISHED = ['succeeded', 'failed', 'canceled'];

describe('three nodes in their own network namespaces (runc, PostgreSQL)', () => {
  const cluster = new NodeNamespaces([
    { name: 'a', index: 1, role: 'api' },
    { name: 'b', index: 2, role: 'worker' },
    { name: 'c', index: 3, role: 'worker' },
  ]);
  let database: { url: string; drop(): Promise<void> } | null = null;
  let db: pg.Client;
  let env: Record<string, string>;
  let key: string;
  const kept: Record<'b' | 'c', string> = { b: '', c: '' };

  const node = (name: string): NamespaceNode => cluster.node(name);
  const call = async (name: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(node(name).url + route, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  const hostOf = async (id: string) => (await db.query('select host_id, status, error from sandboxes where id = $1', [id])).rows[0];
  const nodeRow = async (name: string) => (await db.query('select state, epoch from nodes where id = $1', [node(name).hostId])).rows[0];
  const start = (name: string) => cluster.start(name, name === 'a' ? env : { ...env, PADDOCK_NODE_MAX_SANDBOXES: '2' });
  const containerOf = (name: string, id: string) => cluster.inside(name, ['runc', '--root', `${node(name).dataDir}/runtime/runc`, 'list', '-q']).then((ids) => ids.split('\n').includes(id));

  beforeAll(async () => {
    database = await createPgDatabase();
    db = new pg.Client({ connectionString: database.url });
    db.on('error', () => {});
    await db.connect();
    await cluster.create();
    env = {
      DATABASE_URL: await cluster.relayDatabase(database.url),
      PADDOCK_RUNTIME: 'runc',
      PADDOCK_CLUSTER_SECRET: randomBytes(32).toString('base64'),
      PADDOCK_SECRETS_KEY: randomBytes(32).toString('hex'),
      PADDOCK_NODE_HEARTBEAT_MS: '500',
      PADDOCK_NODE_DEAD_AFTER_SECONDS: '5',
      PADDOCK_PIPELINE_LEASE_SECONDS: '3',
      PADDOCK_BOOTSTRAP: '0',
      PADDOCK_LOG_LEVEL: 'warn',
      PADDOCK_RATE_LIMIT_FREE: '100000',
      PADDOCK_RATE_LIMIT_ENTERPRISE: '1000000',
      PADDOCK_RATE_LIMIT_OPEN: '100000',
    };
    // B first: it runs the migrations the others then find done.
    await start('b');
    await Promise.all([start('c'), start('a')]);
    const signup = await call('a', 'POST', '/signup', { email: `three-${Date.now()}@example.com`, password: 'a-long-password-1' });
    expect(signup.status, signup.text).toBe(201);
    await db.query(`update accounts set plan = 'enterprise'`);
    key = signup.body.api_key;
    const minted = await call('a', 'POST', '/v1/account/keys', { name: 'enterprise' });
    key = minted.body.key;
  }, 240_000);

  afterAll(async () => {
    await db?.end().catch(() => {});
    try {
      await cluster.destroy();
    } finally {
      await database?.drop();
    }
  }, 240_000);

  afterEach((context) => {
    if (context.task.result?.state !== 'fail') return;
    for (const name of ['a', 'b', 'c']) process.stderr.write(`--- node ${name}, last output ---\n${node(name).output().slice(-4000)}\n`);
  });

  it('spreads creates through A over B and C, and refuses the one past their capacity with 503 cluster_full', async () => {
    const created = await Promise.all([1, 2, 3, 4].map(() => call('a', 'POST', '/v1/sandboxes', SANDBOX)));
    for (const reply of created) expect(reply.status, reply.text).toBe(201);
    const hosts: { id: string; host: string }[] = [];
    for (const reply of created) hosts.push({ id: reply.body.id, host: (await hostOf(reply.body.id)).host_id });
    expect(hosts.filter((h) => h.host === 'node-b')).toHaveLength(2);
    expect(hosts.filter((h) => h.host === 'node-c')).toHaveLength(2);
    const refused = await call('a', 'POST', '/v1/sandboxes', SANDBOX);
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.code).toBe('cluster_full');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // One sandbox per worker stays for what follows; the others make room.
    kept.b = hosts.find((h) => h.host === 'node-b')!.id;
    kept.c = hosts.find((h) => h.host === 'node-c')!.id;
    for (const { id } of hosts.filter((h) => h.id !== kept.b && h.id !== kept.c)) expect((await call('a', 'DELETE', `/v1/sandboxes/${id}`)).status).toBe(204);
    for (const id of [kept.b, kept.c]) await waitFor(`${id} to run`, async () => (await call('a', 'GET', `/v1/sandboxes/${id}`)).body.status === 'running', 60_000, 250);
  });

  describe('a sandbox on C, through A', () => {
    const id = () => kept.c;
    const exec = (command: string) => call('a', 'POST', `/v1/sandboxes/${id()}/exec`, { command });

    it('runs exec buffered and streaming, and writes and reads a file', async () => {
      expect((await exec('echo via-a')).body).toMatchObject({ exit_code: 0, stdout: 'via-a\n' });
      const streamed = await fetch(`${node('a').url}/v1/sandboxes/${id()}/exec/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'echo one; sleep 0.2; exit 3' }),
      });
      const lines = ndjsonLines(await streamed.text());
      expect(lines[0]).toMatchObject({ type: 'stdout', data: 'one\n' });
      expect(lines.at(-1)).toMatchObject({ type: 'exit', exit_code: 3 });
      const content = randomBytes(50_000);
      const put = await fetch(`${node('a').url}/v1/sandboxes/${id()}/files/content?path=/workspace/c.bin`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
        body: content,
      });
      expect(put.status).toBe(200);
      const get = await fetch(`${node('a').url}/v1/sandboxes/${id()}/files/content?path=/workspace/c.bin`, { headers: { authorization: `Bearer ${key}` } });
      expect(Buffer.from(await get.arrayBuffer()).equals(content)).toBe(true);
      expect((await call('a', 'GET', `/v1/sandboxes/${id()}/files?path=/workspace`)).text).toContain('c.bin');
    });

    it('diffs a git repository', async () => {
      expect((await exec('cd /workspace && git init -q . && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m init && echo x > new.txt')).body.exit_code).toBe(0);
      const diff = await call('a', 'GET', `/v1/sandboxes/${id()}/git/diff`);
      expect(diff.status, diff.text).toBe(200);
      expect(diff.body.files).toEqual(expect.arrayContaining([{ path: 'new.txt', status: 'added' }]));
    });

    it('lists, protects and previews a port: the preview host is sent to A', async () => {
      expect((await exec('cd /tmp && echo preview-ok > index.html && (nohup python3 -m http.server 8000 >/dev/null 2>&1 &)')).status).toBe(200);
      await waitFor('port 8000 to be listed', async () => (await call('a', 'GET', `/v1/sandboxes/${id()}/ports`)).body.some((p: { port: number }) => p.port === 8000), 30_000, 250);
      const preview = () =>
        new Promise<{ status: number; text: string }>((resolve, reject) => {
          const url = new URL(node('a').url);
          const request = http.request({ host: url.hostname, port: url.port, path: '/index.html', headers: { host: `${id()}-8000.localhost:${url.port}` } }, (response) => {
            let text = '';
            response.on('data', (chunk) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode!, text }));
          });
          request.on('error', reject);
          request.end();
        });
      expect((await call('a', 'POST', `/v1/sandboxes/${id()}/ports/8000/protect`, { password: 'preview-password' })).status).toBe(200);
      expect((await preview()).status).toBe(401);
      expect((await call('a', 'DELETE', `/v1/sandboxes/${id()}/ports/8000/protect`)).status).toBe(200);
      expect(await waitFor('the preview to answer', async () => ((await preview()).status === 200 ? preview() : null), 20_000, 250)).toEqual({ status: 200, text: 'preview-ok\n' });
    });

    it('takes and lists a snapshot, pauses and resumes', async () => {
      const snapshot = await call('a', 'POST', `/v1/sandboxes/${id()}/snapshots`, { name: 'on-c' });
      expect(snapshot.status, snapshot.text).toBe(201);
      const listed = await call('a', 'GET', `/v1/sandboxes/${id()}/snapshots`);
      expect(JSON.stringify(listed.body)).toContain(snapshot.body.id);
      expect((await call('a', 'POST', `/v1/sandboxes/${id()}/pause`)).status).toBe(200);
      expect((await call('a', 'GET', `/v1/sandboxes/${id()}`)).body.status).toBe('paused');
      expect((await call('a', 'POST', `/v1/sandboxes/${id()}/resume`)).status).toBe(200);
      await waitFor('the sandbox to run again', async () => (await call('a', 'GET', `/v1/sandboxes/${id()}`)).body.status === 'running', 30_000, 250);
      expect((await exec('echo back')).body.stdout).toBe('back\n');
    });

    it('follows a background process and opens the terminal with a ticket from A', async () => {
      const started = await call('a', 'POST', `/v1/sandboxes/${id()}/processes`, { command: 'for i in 1 2; do echo tick $i; sleep 0.1; done' });
      expect(started.status, started.text).toBe(201);
      const followed = await follow(node('a').url, key, `/v1/sandboxes/${id()}/processes/${started.body.id}`);
      expect(textOf(followed.events)).toBe('tick 1\ntick 2\n');
      const minted = await call('a', 'POST', `/v1/sandboxes/${id()}/terminal/tickets`);
      expect(minted.status, minted.text).toBe(201);
      expect(minted.body.url).toContain(new URL(node('a').url).host);
      const socket = new WebSocket(minted.body.url);
      let output = '';
      socket.on('message', (data: Buffer, binary) => {
        if (binary) output += data.toString('utf8');
      });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      socket.send('echo term-$((6*7))\r');
      await waitFor('the terminal output', () => /term-42\r+\n/.test(output) || Promise.reject(new Error(output.slice(-200))), 15_000, 50);
      socket.close();
    });

    it('cannot reach any node, nor the database relay, from inside the sandbox', async () => {
      const probe = (host: string, port: number) =>
        `python3 -c "import socket,sys
try:
    socket.create_connection(('${host}', ${port}), timeout=1); print('${host}:open')
except OSError as e:
    print('${host}:closed')"`;
      const relayPort = new URL(env.DATABASE_URL).port;
      const targets: [string, number][] = [...['a', 'b', 'c'].map((name): [string, number] => [new URL(node(name).url).hostname, 8080]), [BRIDGE_ADDRESS, Number(relayPort)]];
      const reply = await exec(targets.map(([host, port]) => probe(host, port)).join('; '));
      expect(reply.body.stdout.trim().split('\n')).toEqual(targets.map(([host]) => `${host}:closed`));
    });
  });

  it('finishes a pipeline run on the other worker after kill -9 of the one running its stage; restarted, that worker stays fenced off its sandboxes', async () => {
    const writeDone = `python3 -c "import os,json,urllib.request as u; u.urlopen(u.Request(os.environ['PADDOCK_STATE_URL']+'/done-'+os.urandom(4).hex(), data=json.dumps({'value':1}).encode(), method='PUT', headers={'authorization':'Bearer '+os.environ['PADDOCK_STATE_TOKEN'],'content-type':'application/json'}), timeout=10)"`;
    const pipeline = await call('b', 'POST', '/v1/pipelines', {
      name: 'survives',
      stages: [{ name: 'slow', type: 'command', command: `echo started; sleep 6; ${writeDone}; echo finished`, template: 'python-311' }],
    });
    expect(pipeline.status, pipeline.text).toBe(201);
    const run = (await call('b', 'POST', `/v1/pipelines/${pipeline.body.id}/runs`, {})).body;
    const firstSandbox = await waitFor(
      'the stage to run in a sandbox',
      async () => {
        const row = (await db.query(`select r.sandbox_id, s.host_id from pipeline_run_sandboxes r join sandboxes s on s.id = r.sandbox_id where r.run_id = $1 and s.status = 'running'`, [run.id]))
          .rows[0];
        if (!row) throw new Error(`the run: ${(await call('b', 'GET', `/v1/pipelines/${pipeline.body.id}/runs/${run.id}`)).text}`);
        return row as { sandbox_id: string; host_id: string };
      },
      60_000,
      200,
    );
    const victim = firstSandbox.host_id === 'node-b' ? 'b' : 'c';
    const survivor = victim === 'b' ? 'c' : 'b';
    const victimsOwn = kept[victim];
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const epochBefore = (await nodeRow(victim)).epoch;
    await cluster.stop(victim, 'SIGKILL');

    const done = await waitFor(
      'the run to finish on the other worker',
      async () => {
        const current = (await call(survivor, 'GET', `/v1/pipelines/${pipeline.body.id}/runs/${run.id}`)).body;
        return FINISHED.includes(current.status) && current;
      },
      90_000,
      250,
    );
    expect(done.status).toBe('succeeded');
    const logs = (await call(survivor, 'GET', `/v1/pipelines/${pipeline.body.id}/runs/${run.id}/stages/slow/logs`)).body;
    expect(logs.attempts.map((a: { status: string }) => a.status)).toEqual(['lost', 'succeeded']);
    expect(logs.attempts[0].stdout).not.toContain('finished');
    expect(logs.attempts[1].stdout).toBe('started\nfinished\n');
    const attempts = (await db.query(`select r.attempt, s.host_id from pipeline_run_sandboxes r join sandboxes s on s.id = r.sandbox_id where r.run_id = $1 order by r.attempt`, [run.id])).rows;
    expect(attempts.map((a) => a.host_id)).toEqual([node(victim).hostId, node(survivor).hostId]);
    // Exactly one attempt got as far as writing its mark into the run's state.
    const state = (await call(survivor, 'GET', `/v1/pipelines/${pipeline.body.id}/runs/${run.id}/state`)).body;
    expect(
      JSON.stringify(state)
        .match(/done-[0-9a-f]{8}/g)!
        .filter((k, i, all) => all.indexOf(k) === i),
    ).toHaveLength(1);

    // The victim's own sandbox was declared lost by a surviving node.
    await waitFor("the victim's sandbox to be error", async () => (await hostOf(victimsOwn)).status === 'error', 30_000, 250);
    expect((await hostOf(victimsOwn)).error).toMatch(/^node_lost/);
    expect(await nodeRow(victim)).toMatchObject({ state: 'lost' });
    const epochLost = (await nodeRow(victim)).epoch;
    expect(epochLost).toBeGreaterThan(epochBefore);
    expect(await containerOf(victim, victimsOwn)).toBe(true);

    await start(victim);
    expect(await nodeRow(victim)).toMatchObject({ state: 'active' });
    expect((await nodeRow(victim)).epoch).toBeGreaterThan(epochLost);
    expect(await hostOf(victimsOwn)).toMatchObject({ status: 'error' });
    await waitFor('the restart reconcile to remove the lost containers', async () => !(await containerOf(victim, victimsOwn)) && !(await containerOf(victim, firstSandbox.sandbox_id)), 30_000, 250);
    expect((await db.query(`select type from alerts where sandbox_id = $1`, [victimsOwn])).rows).toEqual([{ type: 'sandbox_error' }]);
    kept[victim] = '';
  }, 180_000);

  it('declares a worker cut off by nftables lost; back on the network it is fenced, reconciles and registers again', async () => {
    const target = kept.b ? 'b' : 'c';
    const own = kept[target];
    expect(await hostOf(own)).toMatchObject({ status: 'running' });
    const epochBefore = (await nodeRow(target)).epoch;
    await cluster.cutOff(target);
    let epochLost: number;
    try {
      await waitFor('the cut-off worker to be declared lost', async () => (await nodeRow(target)).state === 'lost', 30_000, 250);
      epochLost = (await nodeRow(target)).epoch;
      expect(epochLost).toBeGreaterThan(epochBefore);
      // The winning sweeper (any node, the api node included) declares the node, then moves its sandboxes.
      await waitFor('its sandbox to be error', async () => (await hostOf(own)).status === 'error', 10_000, 100);
      expect((await hostOf(own)).error).toMatch(/^node_lost/);
      expect((await db.query(`select type from alerts where sandbox_id = $1`, [own])).rows).toEqual([{ type: 'sandbox_error' }]);
      // Nobody could tell it: its sandbox still runs on it.
      expect(await containerOf(target, own)).toBe(true);
    } finally {
      await cluster.reconnect(target);
    }
    // Its next heartbeat (WHERE epoch = its own) updates no row: it learns it was declared lost.
    await waitFor(
      'the worker to register again',
      async () => {
        const row = await nodeRow(target);
        return row.state === 'active' && row.epoch > epochLost;
      },
      60_000,
      250,
    );
    expect(node(target).output()).toContain('this node was declared lost');
    await waitFor("its lost sandbox's container to be gone", async () => !(await containerOf(target, own)), 30_000, 250);
    expect(await hostOf(own)).toMatchObject({ status: 'error' });
    expect((await call('a', 'GET', `/v1/sandboxes/${own}`)).body.status).toBe('error');
    kept[target] = '';
  }, 120_000);

  it('an api node killed mid-stream: the retry through B with the same Idempotency-Key succeeds, and a create retried through B is the same sandbox', async () => {
    const createKey = `create-${randomBytes(8).toString('hex')}`;
    const created = await call('a', 'POST', '/v1/sandboxes', SANDBOX, { 'idempotency-key': createKey });
    expect(created.status, created.text).toBe(201);
    const retried = await call('b', 'POST', '/v1/sandboxes', SANDBOX, { 'idempotency-key': createKey });
    expect(retried.status, retried.text).toBe(201);
    expect(retried.body.id).toBe(created.body.id);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect((await db.query(`select id from sandboxes where status = any($1)`, [LIVE])).rows).toEqual([{ id: created.body.id }]);
    const id = created.body.id as string;
    await waitFor('the sandbox to run', async () => (await call('b', 'GET', `/v1/sandboxes/${id}`)).body.status === 'running', 60_000, 250);

    const streamKey = `stream-${randomBytes(8).toString('hex')}`;
    const stream = (name: string) =>
      fetch(`${node(name).url}/v1/sandboxes/${id}/exec/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': streamKey },
        body: JSON.stringify({ command: 'for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.5; done' }),
      });
    const cut = await stream('a');
    expect(cut.status).toBe(200);
    const decoder = new TextDecoder();
    let seen = '';
    let broken: unknown = null;
    try {
      for await (const chunk of cut.body as unknown as AsyncIterable<Uint8Array>) {
        seen += decoder.decode(chunk, { stream: true });
        if (seen.includes('tick 1') && cluster.node('a').child) await cluster.stop('a', 'SIGKILL');
      }
    } catch (error) {
      broken = error;
    }
    expect(seen).toContain('tick 1');
    expect(seen).not.toContain('"type":"exit"');
    expect(broken).not.toBeNull();

    const again = await stream('b');
    expect(again.status).toBe(200);
    const lines = ndjsonLines(await again.text());
    expect(
      lines
        .filter((l) => l.type === 'stdout')
        .map((l) => l.data)
        .join(''),
    ).toBe('tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6\n');
    expect(lines.at(-1)).toMatchObject({ type: 'exit', exit_code: 0 });
  }, 120_000);
});
