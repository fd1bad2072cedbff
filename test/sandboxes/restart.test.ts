// A server killed with SIGKILL while sandboxes run: on start it re-attaches the live ones, marks the
// ones whose processes died `error`, and removes what is left of sandboxes it no longer knows.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_TEMPLATES_DIR } from '../helpers/app.js';
import { startServe, type Served } from '../helpers/cli.js';

const RUNTIMES = [
  ['runc', 'runc'],
  ['gvisor', 'runsc'],
] as const;

describe.each(RUNTIMES)('restart after kill -9 with %s', (runtime, binary) => {
  let served: Served | null = null;
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
  });

  it('re-attaches running sandboxes, marks dead ones error and cleans unknown leftovers', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-restart-'));
    fs.symlinkSync(TEST_TEMPLATES_DIR, path.join(data, 'templates'));
    const env = { PADDOCK_RUNTIME: runtime, PADDOCK_LOG_LEVEL: 'warn' };
    served = await startServe(['--port', '0', '--data', data], env);
    const key = /^API key: (\S+)$/m.exec(served.stdout())![1];
    const api = async (method: string, route: string, body?: object) => {
      const response = await fetch(served!.url + route, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: response.status === 204 ? null : await response.json() };
    };
    const create = async () => (await api('POST', '/v1/sandboxes', { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 })).body.id as string;

    const survivor = await create();
    const victim = await create();
    const forgotten = await create();
    expect((await api('POST', `/v1/sandboxes/${survivor}/exec`, { command: 'echo 41 > /workspace/n' })).body.exit_code).toBe(0);

    served.child.kill('SIGKILL');
    await served.exited;

    // While the server is down: one sandbox's processes die, and another's row disappears.
    execFileSync(binary, ['--root', path.join(data, 'runtime', binary), 'kill', victim, 'KILL']);
    const db = new Database(path.join(data, 'paddock.db'));
    db.prepare('delete from sandboxes where id = ?').run(forgotten);
    db.close();

    served = await startServe(['--port', '0', '--data', data], env);
    const alive = await api('POST', `/v1/sandboxes/${survivor}/exec`, { command: 'echo $(( $(cat /workspace/n) + 1 ))' });
    expect(alive.body).toMatchObject({ exit_code: 0, output: '42\n' });
    expect((await api('GET', `/v1/sandboxes/${survivor}`)).body.status).toBe('running');

    const dead = (await api('GET', `/v1/sandboxes/${victim}`)).body;
    expect(dead.status).toBe('error');
    expect(dead.error).toMatch(/server restart/);
    expect((await api('POST', `/v1/sandboxes/${victim}/exec`, { command: 'true' })).body).toMatchObject({ exit_code: 1, error: expect.any(String) });

    expect(fs.existsSync(path.join(data, 'sandboxes', forgotten))).toBe(false);
    expect(fs.readFileSync('/proc/self/mounts', 'utf8')).not.toContain(forgotten);
    expect(fs.existsSync(`/run/netns/paddock-${forgotten}`)).toBe(false);

    for (const id of [survivor, victim]) expect((await api('DELETE', `/v1/sandboxes/${id}`)).status).toBe(204);
    expect(fs.readdirSync(path.join(data, 'sandboxes'))).toEqual([]);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    // Every sandbox is gone; what is left is the database and the disk pool's spare images.
    fs.rmSync(data, { recursive: true, force: true });
  });
});
