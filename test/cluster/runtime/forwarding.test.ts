// Two nodes on one PostgreSQL database: a `worker` with the runtime and an `api` node without one. A
// sandbox created through the api node is placed on the worker, and every sandbox-bound request sent to
// the api node (exec buffered and streaming, files, a followed background process, pause/resume, the
// terminal WebSocket, a preview) reaches it and answers as it would locally. One sandbox throughout.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { signNodeRequest } from '../../../src/cluster/node-auth.js';
import { startApp, type TestApp } from '../../helpers/app.js';
import { waitForSandboxStatus } from '../../helpers/sandboxes.js';
import { waitFor } from '../../helpers/wait-for.js';
import { follow, textOf } from '../../processes/follow.js';
import { ndjsonLines } from '../../helpers/ndjson.js';

const secret = randomBytes(32).toString('base64');
const cluster = { PADDOCK_CLUSTER_SECRET: secret, PADDOCK_SECRETS_KEY: randomBytes(32).toString('hex'), PADDOCK_NODE_HEARTBEAT_MS: '500', PADDOCK_NODE_DEAD_AFTER_SECONDS: '5' };

describe('an api node forwarding to a worker (runc)', () => {
  let worker: TestApp;
  let api: TestApp;
  let key: string;
  let id: string;
  const call = (method: string, path: string, body?: unknown) => api.request(method, path, { token: key, body });

  beforeAll(async () => {
    worker = await startApp('postgres', { ...cluster, PADDOCK_ROLE: 'worker', PADDOCK_HOST_ID: 'worker-1', PADDOCK_NODE_MAX_SANDBOXES: '1' }, { runtime: 'runc', networkProfile: 1 });
    api = await startApp('postgres', { ...cluster, DATABASE_URL: worker.databaseUrl!, PADDOCK_ROLE: 'api', PADDOCK_HOST_ID: 'api-1' });
    key = (await api.signupOnPlan('pro')).key;
    const created = await call('POST', '/v1/sandboxes', { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1 });
    expect(created.status, created.text).toBe(201);
    id = created.body.id;
    await waitForSandboxStatus(api, key, id, ['running'], 30_000);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await worker?.close();
  });

  it('places the create on the worker, and the api node serves no sandbox itself', async () => {
    const row = await api.storage.db.selectFrom('sandboxes').select(['host_id', 'runtime']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ host_id: 'worker-1', runtime: 'runc' });
    expect(api.services.sandboxes).toBeNull();
    expect((await call('GET', '/v1/sandboxes')).body.map((sandbox: { id: string }) => sandbox.id)).toContain(id);
  });

  it('runs exec, buffered and streaming, and reads back a written file', async () => {
    expect((await call('POST', `/v1/sandboxes/${id}/exec`, { command: 'echo via-api; hostname >/dev/null' })).body).toMatchObject({ exit_code: 0, stdout: 'via-api\n' });
    const streamed = await fetch(`${api.url}/v1/sandboxes/${id}/exec/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'echo one; sleep 0.2; exit 3' }),
    });
    expect(streamed.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = ndjsonLines(await streamed.text());
    expect(lines[0]).toMatchObject({ type: 'stdout', data: 'one\n' });
    expect(lines.at(-1)).toMatchObject({ type: 'exit', exit_code: 3 });
    const content = randomBytes(70_000);
    const put = await fetch(`${api.url}/v1/sandboxes/${id}/files/content?path=forwarded.bin`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
      body: content,
    });
    expect(put.status).toBe(200);
    const get = await fetch(`${api.url}/v1/sandboxes/${id}/files/content?path=/workspace/forwarded.bin`, { headers: { authorization: `Bearer ${key}` } });
    expect(Buffer.from(await get.arrayBuffer()).equals(content)).toBe(true);
  });

  it('follows a background process to its end', async () => {
    const started = await call('POST', `/v1/sandboxes/${id}/processes`, { command: 'for i in 1 2 3; do echo tick $i; sleep 0.1; done' });
    expect(started.status, started.text).toBe(201);
    const followed = await follow(api.url, key, `/v1/sandboxes/${id}/processes/${started.body.id}`);
    expect(followed.status).toBe(200);
    expect(textOf(followed.events)).toBe('tick 1\ntick 2\ntick 3\n');
    expect(followed.events.at(-1)).toMatchObject({ type: 'exit', exit_code: 0 });
  });

  it('opens the terminal with a ticket, through the api node', async () => {
    const minted = await call('POST', `/v1/sandboxes/${id}/terminal/tickets`);
    expect(minted.status, minted.text).toBe(201);
    expect(minted.body.url).toContain(new URL(api.url).host);
    const socket = new WebSocket(minted.body.url);
    let output = '';
    socket.on('message', (data: Buffer, binary) => {
      if (binary) output += data.toString('utf8');
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send('echo term-$((6*7))\r');
    await waitFor('the terminal output', () => (/term-42\r\n/.test(output) ? true : Promise.reject(new Error(output.slice(-200)))), 15_000, 50);
    socket.close();
  });

  it('serves a preview host through the api node', async () => {
    expect((await call('POST', `/v1/sandboxes/${id}/exec`, { command: 'cd /tmp && echo preview-ok > index.html && (nohup python3 -m http.server 8000 >/dev/null 2>&1 &)' })).status).toBe(200);
    const port = Number(new URL(api.url).port);
    const body = await waitFor(
      'the preview to answer',
      () =>
        new Promise<string>((resolve, reject) => {
          const request = http.request({ host: '127.0.0.1', port, path: '/index.html', headers: { host: `${id}-8000.localhost:${port}` } }, (response) => {
            let text = '';
            response.on('data', (chunk) => (text += chunk));
            response.on('end', () => (response.statusCode === 200 ? resolve(text) : reject(new Error(`${response.statusCode} ${text}`))));
          });
          request.on('error', reject);
          request.end();
        }),
      20_000,
      250,
    );
    expect(body).toBe('preview-ok\n');
  });

  it('pauses and resumes the sandbox through the api node', async () => {
    expect((await call('POST', `/v1/sandboxes/${id}/pause`)).status).toBe(200);
    expect((await call('GET', `/v1/sandboxes/${id}`)).body.status).toBe('paused');
    expect((await call('POST', `/v1/sandboxes/${id}/resume`)).status).toBe(200);
    await waitForSandboxStatus(api, key, id, ['running'], 30_000);
    expect((await call('POST', `/v1/sandboxes/${id}/exec`, { command: 'echo back' })).body.stdout).toBe('back\n');
  });

  it('answers 503 cluster_full with Retry-After when the worker has no room', async () => {
    const refused = await call('POST', '/v1/sandboxes', { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1 });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.code).toBe('cluster_full');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses a node request with a bad signature: 401 node_auth_failed', async () => {
    const path = `/v1/sandboxes/${id}/exec`;
    const forged = signNodeRequest(randomBytes(32), { method: 'POST', path, nodeId: 'api-1', clientAddress: '127.0.0.1', placed: false });
    const reply = await worker.request('POST', path, { token: key, body: { command: 'echo no' }, headers: forged });
    expect(reply.status).toBe(401);
    expect(reply.body.code).toBe('node_auth_failed');
  });
});
