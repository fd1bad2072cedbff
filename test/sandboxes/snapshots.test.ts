// Snapshots on real sandboxes: snapshot, change files, restore, files are back; a pre-signed download
// fetched with no credentials and unpacked with tar; tampered and expired links refused; snapshots
// outlive their sandbox and restore into another one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadSignature } from '../../src/snapshots/download-url.js';
import { derivedKey } from '../../src/secrets/key.js';
import { startApp, type TestApp } from '../helpers/app.js';

const RUNTIMES = ['runc', 'gvisor'] as const;

describe.each(RUNTIMES)('snapshots with %s', (runtime) => {
  let t: TestApp;
  let key: string;
  let sandboxId: string;

  const create = async () => {
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };
  const exec = async (id: string, command: string) => (await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command } })).body;
  const snapshot = (id: string, name: string) => t.request('POST', `/v1/sandboxes/${id}/snapshots`, { token: key, body: { name } });

  beforeAll(async () => {
    t = await startApp('sqlite', {}, { runtime });
    key = (await t.signupOnPlan('team')).key;
    sandboxId = await create();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('restores the files as they were at the snapshot', async () => {
    expect((await exec(sandboxId, 'mkdir -p /workspace/app && echo v1 > /workspace/app/data.txt && echo keep > /workspace/keep.txt && rm /etc/issue && echo 1')).exit_code).toBe(0);
    const taken = await snapshot(sandboxId, 'before changes');
    expect(taken.status).toBe(201);
    expect(taken.body).toMatchObject({ sandbox_id: sandboxId, name: 'before changes', status: 'completed', kind: 'manual', template: 'python-311' });
    expect(taken.body.id).toMatch(/^snap_/);
    expect(taken.body.size_bytes).toBeGreaterThan(0);
    expect(Date.parse(taken.body.created_at)).not.toBeNaN();

    // The sandbox runs on after the snapshot.
    expect((await exec(sandboxId, 'echo v2 > /workspace/app/data.txt; rm /workspace/keep.txt; echo new > /workspace/new.txt; echo back > /etc/issue')).exit_code).toBe(0);
    const restored = await t.request('POST', `/v1/snapshots/${taken.body.id}/restore`, { token: key, body: { sandbox_id: sandboxId } });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ snapshot_id: taken.body.id, sandbox_id: sandboxId, status: 'running' });

    const after = await exec(sandboxId, 'cat /workspace/app/data.txt /workspace/keep.txt; test -e /workspace/new.txt && echo new-exists; test -e /etc/issue && echo issue-exists; hostname');
    expect(after.exit_code).toBe(0);
    expect(after.output).toBe(`v1\nkeep\n${sandboxId}\n`);
    expect((await t.request('GET', `/v1/sandboxes/${sandboxId}`, { token: key })).body.status).toBe('running');

    const listed = (await t.request('GET', `/v1/sandboxes/${sandboxId}/snapshots`, { token: key })).body;
    expect(listed.map((s: any) => s.id)).toEqual([taken.body.id]);
    expect((await t.request('GET', `/v1/snapshots/${taken.body.id}`, { token: key })).body).toEqual(taken.body);
  });

  it('serves a pre-signed .tar.gz download without credentials, and refuses tampered or expired links', async () => {
    expect((await exec(sandboxId, 'echo downloadable > /workspace/dl.txt')).exit_code).toBe(0);
    const taken = (await snapshot(sandboxId, 'for download')).body;
    const link = await t.request('GET', `/v1/snapshots/${taken.id}/download`, { token: key });
    expect(link.status).toBe(200);
    expect(Date.parse(link.body.expires_at)).toBeGreaterThan(Date.now() + 60_000);

    const response = await fetch(link.body.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/gzip');
    const archive = Buffer.from(await response.arrayBuffer());
    expect(archive.length).toBe(taken.size_bytes);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-snap-'));
    fs.writeFileSync(path.join(dir, 's.tar.gz'), archive);
    fs.mkdirSync(path.join(dir, 'x'));
    execFileSync('tar', ['-xzf', path.join(dir, 's.tar.gz'), '-C', path.join(dir, 'x')]);
    expect(fs.readFileSync(path.join(dir, 'x', 'workspace', 'dl.txt'), 'utf8')).toBe('downloadable\n');
    fs.rmSync(dir, { recursive: true, force: true });

    const url = new URL(link.body.url);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const refused = await fetch(tampered);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toMatch(/not valid/);

    // A correctly signed link whose time is up.
    const signingKey = derivedKey(fs.readFileSync(path.join(t.dataDir, 'keys', 'secrets.key')), 'paddock snapshot download url');
    const past = Math.floor(Date.now() / 1000) - 5;
    const expired = await fetch(`${url.origin}${url.pathname}?expires=${past}&signature=${downloadSignature(signingKey, taken.id, past)}`);
    expect(expired.status).toBe(403);
    expect((await expired.json()).error).toMatch(/expired/);
  });

  it('keeps snapshots after the sandbox is destroyed and restores them into another sandbox', async () => {
    const source = await create();
    expect((await exec(source, 'echo from-source > /workspace/origin.txt')).exit_code).toBe(0);
    const taken = (await snapshot(source, 'outlives')).body;
    expect((await t.request('DELETE', `/v1/sandboxes/${source}`, { token: key })).status).toBe(204);
    expect((await t.request('GET', `/v1/snapshots/${taken.id}`, { token: key })).body.status).toBe('completed');
    expect((await t.request('GET', `/v1/sandboxes/${source}/snapshots`, { token: key })).body).toHaveLength(1);
    expect((await t.request('POST', `/v1/sandboxes/${source}/snapshots`, { token: key, body: { name: 'x' } })).status).toBe(409);

    const target = await create();
    const restored = await t.request('POST', `/v1/snapshots/${taken.id}/restore`, { token: key, body: { sandbox_id: target } });
    expect(restored.status).toBe(200);
    const read = await exec(target, 'cat /workspace/origin.txt; hostname');
    expect(read.output).toBe(`from-source\n${target}\n`);

    // Another account sees none of it.
    const other = (await t.signupOnPlan('team')).key;
    expect((await t.request('GET', `/v1/snapshots/${taken.id}`, { token: other })).status).toBe(404);
    expect((await t.request('POST', `/v1/snapshots/${taken.id}/restore`, { token: other, body: { sandbox_id: target } })).status).toBe(404);

    expect((await t.request('DELETE', `/v1/snapshots/${taken.id}`, { token: key })).status).toBe(204);
    expect((await t.request('GET', `/v1/snapshots/${taken.id}`, { token: key })).status).toBe(404);
    expect((await t.request('GET', `/v1/snapshots/${taken.id}/download`, { token: key })).status).toBe(404);
  });

  it('refuses a restore onto another template, a missing sandbox and bad bodies', async () => {
    const taken = (await snapshot(sandboxId, 'template check')).body;
    const minimal = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'minimal', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(minimal.status).toBe(201);
    const wrong = await t.request('POST', `/v1/snapshots/${taken.id}/restore`, { token: key, body: { sandbox_id: minimal.body.id } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/body.sandbox_id is a minimal sandbox/);
    expect((await t.request('POST', `/v1/snapshots/${taken.id}/restore`, { token: key, body: { sandbox_id: 'sbx_nope' } })).status).toBe(404);
    expect((await t.request('POST', `/v1/snapshots/${taken.id}/restore`, { token: key, body: {} })).status).toBe(400);
    expect((await t.request('POST', `/v1/sandboxes/${sandboxId}/snapshots`, { token: key, body: { name: '' } })).status).toBe(400);
    expect((await t.request('POST', `/v1/sandboxes/${sandboxId}/snapshots`, { token: key, body: {} })).status).toBe(400);
  });
});
