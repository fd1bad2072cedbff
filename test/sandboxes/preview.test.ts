// The preview proxy end to end: a Node HTTP + WebSocket server inside a real sandbox (runc and gVisor),
// reached through Paddock by Host header, on SQLite and PostgreSQL.
import http from 'node:http';
import net from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startNodeServerSandbox } from '../helpers/node-server-sandbox.js';

const RUNTIMES = ['runc', 'gvisor'] as const;
const COMBOS = RUNTIMES.flatMap((runtime) => BACKENDS.map((backend) => [runtime, backend] as const));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const RATE_LIMIT = 40;
const MAX_PASSWORD_FAILURES = 3;

// Port 3000: content, streams, bodies and a hand-written WebSocket echo; port 3001: a second site for the rate limit.
const SERVER = String.raw`
import http from 'node:http';
import crypto from 'node:crypto';
const big = Buffer.alloc(5 * 1024 * 1024, 'paddock!');
const app = http.createServer((req, res) => {
  if (req.url === '/sse') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let n = 0;
    const timer = setInterval(() => { res.write('data: ' + n++ + '\n\n'); if (n === 3) { clearInterval(timer); res.end(); } }, 400);
    return;
  }
  if (req.url === '/echo') { res.writeHead(200, { 'content-type': 'application/octet-stream' }); req.pipe(res); return; }
  if (req.url === '/big') { res.writeHead(200, { 'content-length': big.length }); res.end(big); return; }
  if (req.url === '/headers') { res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] }); res.end(JSON.stringify(req.headers)); return; }
  res.writeHead(200, { 'content-type': 'text/plain' }); res.end('hello from node ' + req.method);
});
app.on('upgrade', (req, socket) => {
  const accept = crypto.createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + '\r\n\r\n');
  socket.on('data', (frame) => {
    const length = frame[1] & 127, mask = frame.subarray(2, 6), payload = Buffer.from(frame.subarray(6, 6 + length));
    for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
    if ((frame[0] & 15) === 8) return socket.end();
    const reply = Buffer.from('echo: ' + payload.toString());
    socket.write(Buffer.concat([Buffer.from([0x81, reply.length]), reply]));
  });
});
app.listen(3000, '0.0.0.0');
http.createServer((req, res) => res.end('second site')).listen(3001, '0.0.0.0');
`;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Milliseconds after the request started at which each body chunk arrived. */
  chunkTimesMs: number[];
}

describe.each(COMBOS)('previews on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;
  let sandboxId: string;
  let appPort: number;

  const host = (port: number, id = sandboxId) => `${id}-${port}.localhost:${appPort}`;
  function preview(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer | string; id?: string } = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const request = http.request({ host: '127.0.0.1', port: appPort, path, method: options.method ?? 'GET', headers: { host: host(port, options.id), ...options.headers } }, (response) => {
        const chunks: Buffer[] = [];
        const chunkTimesMs: number[] = [];
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          chunkTimesMs.push(Date.now() - started);
        });
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks), chunkTimesMs }));
      });
      request.on('error', reject);
      request.end(options.body);
    });
  }
  const api = (method: string, path: string, body?: object) => t.request(method, path, { token: key, body });

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PREVIEW_RATE_LIMIT: String(RATE_LIMIT), PADDOCK_PREVIEW_PASSWORD_MAX_FAILURES: String(MAX_PASSWORD_FAILURES) }, { runtime, networkProfile: 8 });
    appPort = Number(new URL(t.url).port);
    key = (await t.signupOnPlan('team')).key;
    sandboxId = await startNodeServerSandbox(t, key, SERVER, 2, 10_000);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('proxies a request by Host header with the right content, and counts it as activity', async () => {
    const before = (await api('GET', `/v1/sandboxes/${sandboxId}`)).body.last_activity_at;
    await sleep(20);
    const answer = await preview(3000, '/');
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('hello from node GET');
    expect((await preview(3000, '/', { method: 'DELETE' })).body.toString()).toBe('hello from node DELETE');
    await sleep(200);
    const after = (await api('GET', `/v1/sandboxes/${sandboxId}`)).body.last_activity_at;
    expect(new Date(after).getTime()).toBeGreaterThan(new Date(before).getTime());
  });

  it('sets X-Forwarded-* and strips Paddock credentials, keeping the app its own headers and cookies', async () => {
    const answer = await preview(3000, '/headers', { headers: { authorization: `Bearer ${key}`, cookie: 'paddock_preview=1.abc; theirs=kept' } });
    const seen = JSON.parse(answer.body.toString());
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBe('theirs=kept');
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['x-forwarded-host']).toBe(host(3000));
    expect(answer.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it('streams server-sent events as they are produced', async () => {
    const answer = await preview(3000, '/sse');
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.body.toString()).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
    expect(answer.chunkTimesMs.length).toBeGreaterThanOrEqual(3);
    expect(answer.chunkTimesMs.at(-1)! - answer.chunkTimesMs[0]).toBeGreaterThan(600);
  });

  it('carries a 5 MB upload and a 5 MB download', async () => {
    const upload = randomBytes(5 * 1024 * 1024);
    const echoed = await preview(3000, '/echo', { method: 'POST', body: upload, headers: { 'content-type': 'application/octet-stream' } });
    expect(echoed.status).toBe(200);
    expect(createHash('sha256').update(echoed.body).digest('hex')).toBe(createHash('sha256').update(upload).digest('hex'));
    const download = await preview(3000, '/big');
    expect(download.body.length).toBe(5 * 1024 * 1024);
    expect(download.body.subarray(0, 8).toString()).toBe('paddock!');
  });

  it('proxies a WebSocket upgrade and echoes messages', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${appPort}/ws`, { headers: { host: host(3000) } });
    const messages: string[] = [];
    await new Promise<void>((resolve, reject) => {
      socket.on('open', () => socket.send('ping'));
      socket.on('message', (data) => {
        messages.push(data.toString());
        if (messages.length === 1) socket.send('pong');
        else resolve();
      });
      socket.on('error', reject);
    });
    socket.close();
    expect(messages).toEqual(['echo: ping', 'echo: pong']);
  });

  it('answers 502 with a readable page when nothing listens, and 404 for an unknown sandbox', async () => {
    const nothing = await preview(4999, '/');
    expect(nothing.status).toBe(502);
    expect(nothing.headers['content-type']).toMatch(/text\/html/);
    expect(nothing.body.toString()).toContain('Nothing is listening');
    const unknown = await preview(3000, '/', { id: 'sbx_00000000000000000000000000' });
    expect(unknown.status).toBe(404);
  });

  it('answers 400 to a request or upgrade with two Host headers, whichever comes first', async () => {
    const raw = (head: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(appPort, '127.0.0.1', () => socket.write(head));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    const api = `127.0.0.1:${appPort}`;
    for (const hosts of [
      [host(3000), api],
      [api, host(3000)],
    ]) {
      const request = await raw(`GET / HTTP/1.1\r\nHost: ${hosts[0]}\r\nHost: ${hosts[1]}\r\n\r\n`);
      expect(request).toMatch(/^HTTP\/1\.1 400 /);
      expect(request).toContain('more than one Host header');
      const upgrade = await raw(
        `GET / HTTP/1.1\r\nHost: ${hosts[0]}\r\nhost: ${hosts[1]}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
      );
      expect(upgrade).toMatch(/^HTTP\/1\.1 400 /);
    }
  });

  it('asks a browser for the password, then lets it in with a host-only HttpOnly cookie', async () => {
    expect((await api('POST', `/v1/sandboxes/${sandboxId}/ports/3000/protect`, { password: 'correct horse battery' })).status).toBe(200);
    const page = await preview(3000, '/some/page');
    expect(page.status).toBe(401);
    expect(page.body.toString()).toContain('<form method="post" action="/__paddock/login">');
    const form = (password: string) => new URLSearchParams({ password, next: '/some/page' }).toString();
    const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
    const wrong = await preview(3000, '/__paddock/login', { method: 'POST', body: form('nope'), headers: formHeaders });
    expect(wrong.status).toBe(401);
    expect(wrong.body.toString()).toContain('Wrong password');
    const login = await preview(3000, '/__paddock/login', { method: 'POST', body: form('correct horse battery'), headers: formHeaders });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/some/page');
    const cookie = login.headers['set-cookie']![0];
    expect(cookie).toMatch(/^paddock_preview=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const jar = cookie.split(';')[0];
    const inside = await preview(3000, '/headers', { headers: { cookie: `${jar}; theirs=1` } });
    expect(inside.status).toBe(200);
    expect(JSON.parse(inside.body.toString()).cookie).toBe('theirs=1');
    // The cookie is bound to this preview: another port of the same sandbox does not accept it.
    expect((await api('POST', `/v1/sandboxes/${sandboxId}/ports/3001/protect`, { password: 'another password' })).status).toBe(200);
    expect((await preview(3001, '/', { headers: { cookie: jar } })).status).toBe(401);
    expect((await api('DELETE', `/v1/sandboxes/${sandboxId}/ports/3001/protect`)).status).toBe(200);
  });

  it('lets a script in with Basic auth, answers 401 to a wrong password and 429 after repeated failures', async () => {
    const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`me:${password}`).toString('base64')}` });
    const ok = await preview(3000, '/headers', { headers: basic('correct horse battery') });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body.toString()).authorization).toBeUndefined();
    // (one failure was spent by the form above)
    for (let i = 1; i < MAX_PASSWORD_FAILURES; i++) expect((await preview(3000, '/', { headers: basic('wrong') })).status).toBe(401);
    const throttled = await preview(3000, '/', { headers: basic('wrong') });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect((await api('DELETE', `/v1/sandboxes/${sandboxId}/ports/3000/protect`)).status).toBe(200);
    expect((await preview(3000, '/')).status).toBe(200);
  });

  it(`answers 429 past ${RATE_LIMIT} requests a minute on one port`, async () => {
    // One request of this minute went to port 3001 in the password test above.
    const statuses: number[] = [];
    for (let i = 1; i < RATE_LIMIT; i++) statuses.push((await preview(3001, '/')).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const limited = await preview(3001, '/');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await preview(3000, '/')).status).toBe(200);
  });

  it("refuses another account's preview management with 404 while the API itself still needs a key", async () => {
    const other = (await t.signup()).key;
    expect((await t.request('POST', `/v1/sandboxes/${sandboxId}/ports/3000/protect`, { token: other, body: { password: 'hijack-password' } })).status).toBe(404);
    expect((await t.request('GET', `/v1/sandboxes/${sandboxId}/ports`)).status).toBe(401);
  });
});
