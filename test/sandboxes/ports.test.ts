// Port detection end to end: real servers inside real sandboxes (runc and gVisor), SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { markListening } from '../../src/ports/store.js';

const RUNTIMES = ['runc', 'gvisor'] as const;
const COMBOS = RUNTIMES.flatMap((runtime) => BACKENDS.map((backend) => [runtime, backend] as const));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `port` is listening inside the sandbox, so detection time is measured from the listen. */
const untilListening = (port: number, host = '127.0.0.1') =>
  `python3 -c "import socket,time\nfor _ in range(100):\n  try: socket.create_connection(('${host}', ${port}), 0.2).close(); break\n  except OSError: time.sleep(0.05)"`;

const TCP_ECHO = `import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('0.0.0.0', 9000)); s.listen()
while True:
    c, _ = s.accept(); data = c.recv(4096); c.sendall(data); c.close()
`;

describe.each(COMBOS)('ports on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;
  let sandboxId: string;

  const exec = (command: string) => t.request('POST', `/v1/sandboxes/${sandboxId}/exec`, { token: key, body: { command } });
  const ports = async () => (await t.request('GET', `/v1/sandboxes/${sandboxId}/ports`, { token: key })).body as any[];
  async function within(ms: number, accept: (list: any[]) => boolean): Promise<{ list: any[]; elapsedMs: number }> {
    const started = Date.now();
    for (;;) {
      const list = await ports();
      if (accept(list)) return { list, elapsedMs: Date.now() - started };
      if (Date.now() - started > ms) throw new Error(`ports did not change within ${ms} ms: ${JSON.stringify(list)}`);
      await sleep(100);
    }
  }

  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime, networkProfile: 8 });
    key = (await t.signupOnPlan('team')).key;
    const created = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(created.status).toBe(201);
    sandboxId = created.body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists nothing while nothing listens', async () => {
    expect(await ports()).toEqual([]);
  });

  it('detects an HTTP server within 3 s as http with a preview URL, and forgets it within 3 s after it stops', async () => {
    await exec(`nohup python3 -m http.server 8000 >/dev/null 2>&1 & echo $! > /tmp/http.pid; ${untilListening(8000)}`);
    const { list, elapsedMs } = await within(3000, (l) => l.some((p) => p.port === 8000));
    expect(elapsedMs).toBeLessThanOrEqual(3000);
    const port = list.find((p) => p.port === 8000);
    const address = new URL(t.url);
    expect(port).toEqual({ port: 8000, protocol: 'http', preview_url: `http://${sandboxId}-8000.localhost:${address.port}`, protected: false, detected_at: expect.any(String) });
    expect(Date.now() - new Date(port.detected_at).getTime()).toBeLessThan(10_000);

    await exec('kill $(cat /tmp/http.pid)');
    const gone = await within(3000, (l) => !l.some((p) => p.port === 8000));
    expect(gone.elapsedMs).toBeLessThanOrEqual(3000);
  });

  it('detects a plain TCP echo server as tcp without a preview URL', async () => {
    await exec(`cat > /tmp/echo.py <<'PY'\n${TCP_ECHO}PY\nnohup python3 /tmp/echo.py >/dev/null 2>&1 & ${untilListening(9000)}`);
    const { list } = await within(3000, (l) => l.some((p) => p.port === 9000));
    expect(list.find((p) => p.port === 9000)).toMatchObject({ port: 9000, protocol: 'tcp', preview_url: null, protected: false });
  });

  it('does not list a server bound to loopback only, which the proxy could not reach', async () => {
    await exec(`nohup python3 -m http.server 8001 --bind 127.0.0.1 >/dev/null 2>&1 & ${untilListening(8001)}; nohup python3 -m http.server 8002 >/dev/null 2>&1 & ${untilListening(8002)}`);
    await within(3000, (l) => l.some((p) => p.port === 8002));
    expect((await ports()).some((p) => p.port === 8001)).toBe(false);
  });

  it('protects a port with a password and removes the protection', async () => {
    const protect = await t.request('POST', `/v1/sandboxes/${sandboxId}/ports/8002/protect`, { token: key, body: { password: 'preview-secret-1' } });
    expect(protect.status).toBe(200);
    expect(protect.body).toEqual({ port: 8002, protected: true, preview_url: expect.stringContaining(`${sandboxId}-8002.`) });
    expect((await ports()).find((p) => p.port === 8002).protected).toBe(true);
    const stored = await t.storage.db.selectFrom('sandbox_ports').select('password_hash').where('sandbox_id', '=', sandboxId).where('port', '=', 8002).executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^scrypt\$/);
    const removed = await t.request('DELETE', `/v1/sandboxes/${sandboxId}/ports/8002/protect`, { token: key });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ port: 8002, protected: false });
    expect((await ports()).find((p) => p.port === 8002).protected).toBe(false);
  });

  it('rejects a bad port number and an empty password with 400', async () => {
    expect((await t.request('POST', `/v1/sandboxes/${sandboxId}/ports/70000/protect`, { token: key, body: { password: 'x' } })).status).toBe(400);
    expect((await t.request('POST', `/v1/sandboxes/${sandboxId}/ports/8002/protect`, { token: key, body: { password: '' } })).status).toBe(400);
  });

  it("returns 404 for another account's sandbox ports", async () => {
    const other = (await t.signup()).key;
    expect((await t.request('GET', `/v1/sandboxes/${sandboxId}/ports`, { token: other })).status).toBe(404);
    expect((await t.request('POST', `/v1/sandboxes/${sandboxId}/ports/8002/protect`, { token: other, body: { password: 'stolen-password' } })).status).toBe(404);
    expect((await t.request('DELETE', `/v1/sandboxes/${sandboxId}/ports/8002/protect`, { token: other })).status).toBe(404);
  });

  it('does not scan a sandbox without a network: nothing can reach its ports', async () => {
    const isolated = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(isolated.status).toBe(201);
    const id = isolated.body.id;
    await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command: `nohup python3 -m http.server 8003 >/dev/null 2>&1 & ${untilListening(8003)}` } });
    // A port recorded earlier (a server from before `none` sandboxes stopped being scanned) is dropped too.
    await markListening(t.storage.db, id, 8004, 'http', new Date().toISOString());
    // Two scan passes (every 2 s), during which the networked sandbox's server above is still seen.
    await sleep(4500);
    expect((await t.request('GET', `/v1/sandboxes/${id}/ports`, { token: key })).body).toEqual([]);
    await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key });
  });
});
