// Snapshots in a cluster: an api node and two workers (the first of role `all`) on one PostgreSQL database. A snapshot's archive
// is on the disk of the worker that took it; through the api node its record, download link, download,
// restore and delete reach that worker, a restore into a sandbox on the other worker gets the archive
// streamed there in a signed node call, and once the holder has stopped what needs the archive answers 503
// snapshot_unavailable (the record still reads), and a worker's restart leaves the snapshots another
// node is taking alone. One sandbox on each worker.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';
import { waitForSandboxStatus } from '../../helpers/sandboxes.js';
import { waitFor } from '../../helpers/wait-for.js';

const secret = randomBytes(32).toString('base64');
// Nodes share the secrets key (docs/scale-out.md): idempotency fingerprints and download links are keyed by it.
const cluster = {
  PADDOCK_CLUSTER_SECRET: secret,
  PADDOCK_SECRETS_KEY: randomBytes(32).toString('hex'),
  PADDOCK_NODE_HEARTBEAT_MS: '500',
  PADDOCK_NODE_DEAD_AFTER_SECONDS: '5',
};
/** Role `all`: its own creates are placed too, and its own turn is served in process. */
const worker1Env = { ...cluster, PADDOCK_ROLE: 'all', PADDOCK_HOST_ID: 'worker-1', PADDOCK_NODE_MAX_SANDBOXES: '1' };
const sandboxBody = { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1 };

describe('snapshots across an api node and two workers (runc)', () => {
  let worker1: TestApp;
  let worker2: TestApp;
  let worker2Closed = false;
  let api: TestApp;
  let key: string;
  let onWorker1: string;
  let onWorker2: string;
  let snapshotId: string;
  const call = (method: string, path: string, body?: unknown) => api.request(method, path, { token: key, body });
  const archiveOf = (app: TestApp, id: string) => path.join(app.config.snapshots.dir, 'objects', `${id}.tar.gz`);

  beforeAll(async () => {
    worker1 = await startApp('postgres', worker1Env, { runtime: 'runc', networkProfile: 1 });
    const shared = { ...cluster, DATABASE_URL: worker1.databaseUrl! };
    worker2 = await startApp('postgres', { ...shared, PADDOCK_ROLE: 'worker', PADDOCK_HOST_ID: 'worker-2', PADDOCK_NODE_MAX_SANDBOXES: '3' }, { runtime: 'runc', networkProfile: 2 });
    api = await startApp('postgres', { ...shared, PADDOCK_ROLE: 'api', PADDOCK_HOST_ID: 'api-1' });
    key = (await api.signupOnPlan('pro')).key;
    // Straight to worker 1, an `all` node that puts itself first and serves the create itself; it is then full,
    // and the api node places the next on worker 2. The retry with the same key gets the first answer back,
    // wherever it is placed.
    const first = await worker1.request('POST', '/v1/sandboxes', { token: key, body: sandboxBody, headers: { 'idempotency-key': 'first' } });
    expect(first.status, first.text).toBe(201);
    const again = await worker1.request('POST', '/v1/sandboxes', { token: key, body: sandboxBody, headers: { 'idempotency-key': 'first' } });
    expect(again.body.id, again.text).toBe(first.body.id);
    onWorker1 = first.body.id;
    const second = await call('POST', '/v1/sandboxes', sandboxBody);
    expect(second.status, second.text).toBe(201);
    onWorker2 = second.body.id;
    await waitForSandboxStatus(api, key, onWorker1, ['running'], 30_000);
    await waitForSandboxStatus(api, key, onWorker2, ['running'], 30_000);
    expect((await call('POST', `/v1/sandboxes/${onWorker2}/exec`, { command: 'echo before > /workspace/note.txt' })).body.exit_code).toBe(0);
    const taken = await call('POST', `/v1/sandboxes/${onWorker2}/snapshots`, { name: 'before' });
    expect(taken.status, taken.text).toBe(201);
    snapshotId = taken.body.id;
  }, 240_000);
  afterAll(async () => {
    await api?.close();
    if (!worker2Closed) await worker2?.close();
    await worker1?.close();
  });

  it('keeps the archive on the disk of the worker that took it', async () => {
    const hosts = await api.storage.db.selectFrom('sandboxes').select(['id', 'host_id']).where('id', 'in', [onWorker1, onWorker2]).execute();
    expect(Object.fromEntries(hosts.map((row) => [row.id, row.host_id]))).toEqual({ [onWorker1]: 'worker-1', [onWorker2]: 'worker-2' });
    expect(fs.existsSync(archiveOf(worker2, snapshotId))).toBe(true);
    expect(fs.existsSync(archiveOf(worker1, snapshotId))).toBe(false);
  });

  it('gets the snapshot and downloads it through the api node, every time', async () => {
    const got = await call('GET', `/v1/snapshots/${snapshotId}`);
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({ id: snapshotId, sandbox_id: onWorker2, status: 'completed' });
    const archive = fs.readFileSync(archiveOf(worker2, snapshotId));
    // Sent to a random worker, half of these would miss the archive.
    for (let i = 0; i < 4; i++) {
      const link = await call('GET', `/v1/snapshots/${snapshotId}/download`);
      expect(link.status, link.text).toBe(200);
      expect(link.body.url.startsWith(`${api.url}/v1/snapshot-downloads/`)).toBe(true);
      const download = await fetch(link.body.url);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(archive)).toBe(true);
    }
  });

  it('restores into a sandbox on the holding worker, and into one on the other worker, which gets the archive sent over', async () => {
    expect((await call('POST', `/v1/sandboxes/${onWorker2}/exec`, { command: 'echo after > /workspace/note.txt' })).body.exit_code).toBe(0);
    const restored = await call('POST', `/v1/snapshots/${snapshotId}/restore`, { sandbox_id: onWorker2 });
    expect(restored.status, restored.text).toBe(200);
    expect((await call('POST', `/v1/sandboxes/${onWorker2}/exec`, { command: 'cat /workspace/note.txt' })).body.stdout).toBe('before\n');

    expect((await call('POST', `/v1/sandboxes/${onWorker1}/exec`, { command: 'echo mine > /workspace/own.txt' })).body.exit_code).toBe(0);
    const elsewhere = await call('POST', `/v1/snapshots/${snapshotId}/restore`, { sandbox_id: onWorker1 });
    expect(elsewhere.status, elsewhere.text).toBe(200);
    expect(elsewhere.body).toMatchObject({ snapshot_id: snapshotId, sandbox_id: onWorker1, status: 'running' });
    const files = await call('POST', `/v1/sandboxes/${onWorker1}/exec`, { command: 'cat /workspace/note.txt; test -e /workspace/own.txt || echo own gone' });
    expect(files.body.stdout, files.text).toBe('before\nown gone\n');
    expect((await call('GET', `/v1/sandboxes/${onWorker1}`)).body.status).toBe('running');
    // The archive stayed where it was; the copy sent over is not kept on worker 1.
    expect(fs.existsSync(archiveOf(worker1, snapshotId))).toBe(false);
    expect(fs.readdirSync(path.join(worker1.config.snapshots.dir, 'staging'))).toEqual([]);
    const events = (await call('GET', `/v1/sandboxes/${onWorker1}/events`)).body;
    expect(JSON.stringify(events)).toContain(snapshotId);
  });

  it('serves the node call that carries the archive to nobody but a node of the cluster', async () => {
    const route = `/v1/internal/snapshot-restores/${onWorker1}?account_id=x&snapshot_id=${snapshotId}&confidential=0`;
    const unsigned = await worker1.request('PUT', route, { raw: Buffer.from('not an archive'), contentType: 'application/gzip', token: key });
    expect(unsigned.status, unsigned.text).toBe(404);
    expect(unsigned.body.code).toBe('not_found');
    const forged = await worker1.request('PUT', route, {
      raw: Buffer.from('not an archive'),
      contentType: 'application/gzip',
      headers: { 'x-paddock-node-call': 'a'.repeat(64), 'x-paddock-node-call-time': String(Date.now()) },
    });
    expect(forged.status, forged.text).toBe(404);
    expect((await call('POST', `/v1/sandboxes/${onWorker1}/exec`, { command: 'cat /workspace/note.txt' })).body.stdout).toBe('before\n');
    expect((await api.request('GET', '/openapi.json')).text).not.toContain('snapshot-restores');
  });

  it('deletes a snapshot through the api node, archive and all', async () => {
    const taken = await call('POST', `/v1/sandboxes/${onWorker2}/snapshots`, { name: 'to delete' });
    expect(taken.status, taken.text).toBe(201);
    expect(fs.existsSync(archiveOf(worker2, taken.body.id))).toBe(true);
    expect((await call('DELETE', `/v1/snapshots/${taken.body.id}`)).status).toBe(204);
    expect(fs.existsSync(archiveOf(worker2, taken.body.id))).toBe(false);
    expect((await call('GET', `/v1/snapshots/${taken.body.id}`)).status).toBe(404);
  });

  it('answers 503 snapshot_unavailable for what needs the archive once its worker has stopped', async () => {
    const link = (await call('GET', `/v1/snapshots/${snapshotId}/download`)).body.url as string;
    await worker2.close();
    worker2Closed = true;
    // For up to a second the api node still trusts its cached view of worker 2: 502 node_unreachable, retried.
    const restore = await waitFor(
      'the api node to see worker 2 stopped',
      async () => {
        const reply = await call('POST', `/v1/snapshots/${snapshotId}/restore`, { sandbox_id: onWorker1 });
        if (reply.body.code === 'node_unreachable') throw new Error(reply.text);
        return reply;
      },
      5_000,
      100,
    );
    expect(restore.status, restore.text).toBe(503);
    expect(restore.body.code).toBe('snapshot_unavailable');
    expect(restore.body.error).toContain('worker-2');
    expect(Number(restore.headers.get('retry-after'))).toBeGreaterThan(0);
    for (const [method, route] of [
      ['GET', `/v1/snapshots/${snapshotId}/download`],
      ['DELETE', `/v1/snapshots/${snapshotId}`],
    ]) {
      expect((await call(method, route)).body.code).toBe('snapshot_unavailable');
    }
    expect((await fetch(link)).status).toBe(503);
    // Straight to the other worker too: it does not answer 404 for an archive it never had.
    expect((await worker1.request('GET', `/v1/snapshots/${snapshotId}/download`, { token: key })).body.code).toBe('snapshot_unavailable');
    // Only to its account: without a key the answer is 401, as for any snapshot.
    expect((await fetch(`${api.url}/v1/snapshots/${snapshotId}/download`)).status).toBe(401);
    // The record is in the database: any node reads it.
    expect((await call('GET', `/v1/snapshots/${snapshotId}`)).body).toMatchObject({ id: snapshotId, status: 'completed' });
  });

  it("leaves another node's snapshot in progress alone when a worker restarts", async () => {
    // An automatic pause snapshot worker 2 was copying when it went away: only worker 2's own restart may fail it.
    const row = { ...(await worker1.storage.db.selectFrom('snapshots').selectAll().where('id', '=', snapshotId).executeTakeFirstOrThrow()) };
    const inProgress = { ...row, id: `${snapshotId}x`, storage_key: `${snapshotId}x`, kind: 'pause' as const, status: 'creating' as const, size_bytes: 0, completed_at: null };
    await worker1.storage.db.insertInto('snapshots').values(inProgress).execute();
    const { dataDir, databaseUrl } = worker1;
    await worker1.close({ keepData: true, keepSandboxes: true });
    worker1 = await startApp('postgres', worker1Env, { runtime: 'runc', networkProfile: 1, reuse: { dataDir, databaseUrl } });
    const after = await worker1.storage.db.selectFrom('snapshots').select(['status', 'error']).where('id', '=', inProgress.id).executeTakeFirstOrThrow();
    expect(after).toEqual({ status: 'creating', error: null });
    expect((await worker1.request('GET', `/v1/sandboxes/${onWorker1}`, { token: key })).body.status).toBe('running');
  });
});
