import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../helpers/backends.js';
import { runCli, startServe, type Served } from '../helpers/cli.js';
import { ndjsonLines } from '../helpers/ndjson.js';

const made: string[] = [];
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-cli-'));
  made.push(dir);
  return dir;
};
// Every server these tests start is stopped by then; its data dir holds only the database.
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

describe('paddock serve', () => {
  let served: Served | null = null;
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
    served = null;
  });

  it('listens on a free port with --port 0, prints one listening line, and drains on SIGTERM', async () => {
    const data = tmp();
    served = await startServe(['--port', '0', '--data', data]);
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(served.stdout().match(/^listening on /gm)).toHaveLength(1);
    expect(fs.existsSync(path.join(data, 'paddock.db'))).toBe(true);
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it('creates a first account on an empty database and prints a working API key', async () => {
    const data = tmp();
    served = await startServe(['--port', '0', '--data', data]);
    const key = /^API key: (svc_sk_\S+)$/m.exec(served.stdout())?.[1];
    expect(key).toBeDefined();
    const me = await fetch(`${served.url}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: 'admin@paddock.local', plan: 'enterprise' });
    served.child.kill('SIGTERM');
    await served.exited;

    // A second start on the same data does not create another account.
    served = await startServe(['--port', '0', '--data', data]);
    expect(served.stdout()).not.toMatch(/API key/);
  });

  it('reads PADDOCK_HOST, PADDOCK_PORT and PADDOCK_DATA from the environment', async () => {
    const data = tmp();
    served = await startServe([], { PADDOCK_HOST: '127.0.0.1', PADDOCK_PORT: '0', PADDOCK_DATA: data });
    expect(fs.existsSync(path.join(data, 'paddock.db'))).toBe(true);
  });

  it('writes structured JSON logs with request ids and without credentials', async () => {
    const data = tmp();
    served = await startServe(['--port', '0', '--data', data]);
    const key = /^API key: (svc_sk_\S+)$/m.exec(served.stdout())![1];
    const password = /password (\S+),/.exec(served.stdout())![1];
    const me = await fetch(`${served.url}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
    const requestId = me.headers.get('x-request-id');
    await fetch(`${served.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@paddock.local', password }) });
    served.child.kill('SIGTERM');
    await served.exited;
    const lines = ndjsonLines(served.stderr());
    expect(lines.some((line) => line.reqId === requestId)).toBe(true);
    expect(served.stderr()).not.toContain(key);
    expect(served.stderr()).not.toContain(password);
  });

  it('serves from PostgreSQL when DATABASE_URL is set', async () => {
    const database = await createPgDatabase();
    try {
      served = await startServe(['--port', '0', '--data', tmp()], { DATABASE_URL: database.url });
      const ready = await fetch(`${served.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ok', storage: 'ok' });
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it('refuses a bad port with a clear message', async () => {
    const result = await runCli(['serve', '--port', 'eighty']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('port (--port / PADDOCK_PORT) must be an integer');
  });
});

describe('paddock migrate', () => {
  it('applies migrations once, then reports the database up to date', async () => {
    const data = tmp();
    const first = await runCli(['migrate', '--data', data]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('applied: 0001_foundation');
    const second = await runCli(['migrate', '--data', data]);
    expect(second.stdout).toContain('up to date');
  });
});

describe('paddock doctor', () => {
  it('checks every system dependency and exits 0 when the required ones are present', async () => {
    const result = await runCli(['doctor']);
    for (const name of ['runc', 'runsc (gVisor)', 'nftables', 'iproute2', 'debootstrap', 'overlayfs', 'cgroups']) {
      expect(result.stdout).toMatch(new RegExp(`^(OK|MISSING|WARN) +${name.replace(/[()]/g, '\\$&')}:`, 'm'));
    }
    expect(result.code).toBe(result.stdout.includes('MISSING') ? 1 : 0);
  });

  it('names what is missing and the command that fixes it, with a non-zero exit', async () => {
    const result = await runCli(['doctor'], { PATH: '/nonexistent' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^MISSING runc: .*\n\s+fix: apt-get install -y runc$/m);
    expect(result.stdout).toMatch(/^MISSING nftables: .*\n\s+fix: apt-get install -y nftables$/m);
  });

  it('checks PostgreSQL when DATABASE_URL is set', async () => {
    const result = await runCli(['doctor'], { DATABASE_URL: 'postgres://nobody:wrong@127.0.0.1:1/none' });
    expect(result.stdout).toMatch(/^MISSING PostgreSQL \(DATABASE_URL\): cannot connect/m);
    expect(result.code).toBe(1);
  });
});
