// A node lost for real: a server process running a sandbox is killed with SIGKILL; another server on the
// same PostgreSQL declares it lost once its heartbeat is older than the dead time (the sandbox goes
// `error`, reason node_lost, with a sandbox_error alert); restarted, the killed server registers with a
// newer epoch, its reconcile removes the sandbox's container, and the sandbox stays `error`. An api node
// (no runtime) that is the only other node declares a killed worker lost the same way.
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startApp, TEST_TEMPLATES_DIR, type TestApp } from '../../helpers/app.js';
import { startServerChild, type ServerChild } from '../../helpers/server-child.js';
import type { NodeService } from '../../../src/nodes/service.js';
import { waitFor } from '../../helpers/wait-for.js';

const FAST = { PADDOCK_NODE_HEARTBEAT_MS: '200', PADDOCK_NODE_DEAD_AFTER_SECONDS: '2' };
const VICTIM = 'victim-node:/data';
const VICTIM_PROFILE = 1;

function startVictim(dataDir: string, databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<ServerChild> {
  const env = { ...FAST, PADDOCK_HOST_ID: VICTIM, PADDOCK_LOG_LEVEL: 'warn', ...extraEnv };
  return startServerChild('test/helpers/node-server-process.ts', [dataDir, databaseUrl, String(VICTIM_PROFILE), JSON.stringify(env)], 'the victim');
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** A data directory for the victim, holding the test templates. */
function victimDataDir(): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-node-loss-'));
  fs.symlinkSync(TEST_TEMPLATES_DIR, path.join(dataDir, 'templates'));
  return dataDir;
}

/** Kills the victim if it still runs, then removes its data directory and host network. */
async function removeVictim(victim: { child: ChildProcess } | null, dataDir: string): Promise<void> {
  if (victim) await stopProcess(victim.child, 'SIGKILL');
  await removeDataDir(dataDir, { runtime: 'runc', networkProfile: VICTIM_PROFILE });
}

/** The victim's registry row once `who` has declared it lost. */
function declaredLost(nodes: NodeService, who: string) {
  return waitFor(
    `${who} to declare the victim lost`,
    async () => {
      const node = await nodes.get(VICTIM);
      return node?.state === 'lost' && node;
    },
    15_000,
    100,
  );
}

describe('a node that stops heartbeating (PostgreSQL, runc)', () => {
  let survivor: TestApp;
  let victim: { child: ChildProcess; url: string } | null = null;
  let victimData: string;

  beforeAll(async () => {
    survivor = await startApp('postgres', { ...FAST, PADDOCK_HOST_ID: 'survivor-node:/data' }, { runtime: 'runc', networkProfile: 2 });
    victimData = victimDataDir();
  });
  afterAll(async () => {
    await removeVictim(victim, victimData);
    await survivor?.close();
  });

  it('is declared lost after the dead time: its sandbox goes error (node_lost) and, restarted, it reconciles without resurrecting it', async () => {
    const { key } = await survivor.signup();
    victim = await startVictim(victimData, survivor.databaseUrl!);
    const api = async (url: string, method: string, route: string, body?: object) => {
      const response = await fetch(url + route, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    };
    const created = await api(victim.url, 'POST', '/v1/sandboxes', { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await waitFor('the sandbox to run', async () => (await api(victim!.url, 'GET', `/v1/sandboxes/${id}`)).body.status === 'running', 60_000, 200);
    const nodes = survivor.services.nodes.service;
    // Its heartbeat reports the live sandbox.
    const before = await waitFor('the victim to report its sandbox', async () => {
      const node = await nodes.get(VICTIM);
      return node?.sandboxes === 1 && node;
    });
    expect(before).toMatchObject({ state: 'active', alive: true, runtime: 'runc' });

    await stopProcess(victim.child, 'SIGKILL');
    const killedAt = Date.now();
    const lost = await declaredLost(nodes, 'the survivor');
    // Two seconds of silence, plus up to a sweep interval and the last heartbeat's age.
    expect(Date.now() - killedAt).toBeGreaterThan(1000);
    expect(lost).toMatchObject({ alive: false, epoch: before.epoch + 1 });
    expect(lost.lost_at).not.toBeNull();
    const failed = await waitFor('the sandbox to be error', async () => {
      const sandbox = (await api(survivor.url, 'GET', `/v1/sandboxes/${id}`)).body;
      return sandbox.status === 'error' && sandbox;
    });
    expect(failed.error).toMatch(/^node_lost: /);
    const alerts = (await api(survivor.url, 'GET', '/v1/alerts')).body as any[];
    expect(alerts.filter((alert) => alert.type === 'sandbox_error')).toEqual([expect.objectContaining({ message: expect.stringContaining('node_lost') })]);
    // Its container is still there: the dead server could not remove it.
    expect(fs.existsSync(path.join(victimData, 'sandboxes', id))).toBe(true);

    victim = await startVictim(victimData, survivor.databaseUrl!);
    expect(await nodes.get(VICTIM)).toMatchObject({ state: 'active', alive: true, epoch: before.epoch + 2, lost_at: null, sandboxes: 0 });
    expect((await api(victim.url, 'GET', `/v1/sandboxes/${id}`)).body).toMatchObject({ status: 'error', error: failed.error });
    expect(fs.existsSync(path.join(victimData, 'sandboxes', id))).toBe(false);
    expect(() => execFileSync('runc', ['--root', path.join(victimData, 'runtime', 'runc'), 'state', id], { stdio: 'ignore' })).toThrow();
    await stopProcess(victim.child, 'SIGTERM');
    expect(await nodes.get(VICTIM)).toMatchObject({ state: 'stopped', alive: false });
  });
});

describe('a worker that stops heartbeating, with only an api node left (PostgreSQL, runc)', () => {
  const cluster = { ...FAST, PADDOCK_CLUSTER_SECRET: 'an api node and its worker share this secret', PADDOCK_SECRETS_KEY: 'ab'.repeat(32) };
  let apiNode: TestApp;
  let worker: ServerChild | null = null;
  let workerData: string;

  beforeAll(async () => {
    apiNode = await startApp('postgres', { ...cluster, PADDOCK_ROLE: 'api', PADDOCK_HOST_ID: 'api-only-node' });
    workerData = victimDataDir();
  });
  afterAll(async () => {
    await removeVictim(worker, workerData);
    await apiNode?.close();
  });

  it('is declared lost by the api node: its sandbox goes error (node_lost) with the sandbox_error alert, and reads of it are still answered', async () => {
    const { key } = await apiNode.signup();
    worker = await startVictim(workerData, apiNode.databaseUrl!, { ...cluster, PADDOCK_ROLE: 'worker' });
    // Placed by the api node on its only worker.
    const created = await apiNode.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await waitFor('the sandbox to run', async () => (await apiNode.request('GET', `/v1/sandboxes/${id}`, { token: key })).body.status === 'running', 60_000, 200);
    const nodes = apiNode.services.nodes.service;
    const before = await waitFor('the worker to report its sandbox', async () => {
      const node = await nodes.get(VICTIM);
      return node?.sandboxes === 1 && node;
    });

    await stopProcess(worker.child, 'SIGKILL');
    worker = null;
    const lost = await declaredLost(nodes, 'the api node');
    expect(lost).toMatchObject({ alive: false, epoch: before.epoch + 1 });
    // No worker is left, and the api node still answers reads of the sandbox from the database.
    const sandbox = await waitFor('the sandbox to be error', async () => {
      const reply = await apiNode.request('GET', `/v1/sandboxes/${id}`, { token: key });
      expect(reply.status, reply.text).toBe(200);
      return reply.body.status === 'error' && reply.body;
    });
    expect(sandbox.error).toMatch(/^node_lost: /);
    const listed = await apiNode.request('GET', '/v1/sandboxes', { token: key });
    expect(listed.body).toEqual([expect.objectContaining({ id, status: 'error' })]);
    const timeline = await apiNode.request('GET', `/v1/sandboxes/${id}/events`, { token: key });
    expect(timeline.body.at(-1)).toMatchObject({ type: 'sandbox.error', to: 'error', data: { reason: 'node_lost', node: VICTIM } });
    const alerts = await apiNode.request('GET', '/v1/alerts', { token: key });
    expect(alerts.body.filter((alert: any) => alert.type === 'sandbox_error')).toEqual([expect.objectContaining({ message: expect.stringContaining('node_lost') })]);
    // What needs a runtime has nowhere to go.
    const exec = await apiNode.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command: 'true' } });
    expect(exec.status).toBe(502);
    expect(exec.body.code).toBe('node_unreachable');
  });
});
