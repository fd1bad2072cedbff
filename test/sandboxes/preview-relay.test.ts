// Preview connections relayed as a whole once admitted: several requests on one client connection,
// pipelined with bodies, each still counted by the port's rate limit, rewritten (X-Forwarded-*, no
// Paddock credentials) and re-decided when it names another host, another password or an upgrade.
// Real sandboxes (runc and gVisor), raw TCP clients, SQLite and PostgreSQL.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startNodeServerSandbox } from '../helpers/node-server-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const RUNTIMES = ['runc', 'gvisor'] as const;
const COMBOS = RUNTIMES.flatMap((runtime) => BACKENDS.map((backend) => [runtime, backend] as const));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const RATE_LIMIT = 30;

// Port 3000 answers with what it saw (method, path, body, headers) and echoes WebSockets' handshake;
// port 3001 is a second site; port 3002 is only for the rate limit (its /slow answers after 300 ms).
const SERVER = String.raw`
import http from 'node:http';
import crypto from 'node:crypto';
const app = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => res.end(JSON.stringify({ method: req.method, url: req.url, body: Buffer.concat(chunks).toString(), headers: req.headers })));
});
app.on('upgrade', (req, socket) => {
  const accept = crypto.createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + '\r\n\r\n');
});
app.listen(3000, '0.0.0.0');
http.createServer((req, res) => res.end('second site')).listen(3001, '0.0.0.0');
http.createServer((req, res) => (req.url === '/slow' ? setTimeout(() => res.end('slow answer'), 300) : res.end('limited site'))).listen(3002, '0.0.0.0');
`;

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One client TCP connection to Paddock, read answer by answer (every answer here has a Content-Length or none at all). */
class RawConnection {
  private readonly socket: net.Socket;
  private buffered = Buffer.alloc(0);
  private waiter: (() => void) | null = null;
  closed = false;

  constructor(port: number) {
    this.socket = net.connect({ host: '127.0.0.1', port });
    this.socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiter?.();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    this.socket.on('error', () => undefined);
  }

  send(text: string): void {
    this.socket.write(text);
  }

  async next(timeoutMs = 15_000): Promise<RawAnswer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = this.take();
      if (answer) return answer;
      if (this.closed) throw new Error(`connection closed; unread: ${this.buffered.toString()}`);
      if (Date.now() > deadline) throw new Error(`no complete answer; unread: ${this.buffered.toString()}`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 100);
      });
      this.waiter = null;
    }
  }

  /** Resolves once the server has closed the connection. */
  async ended(timeoutMs = 15_000): Promise<void> {
    await waitFor('the server to close the connection', () => this.closed, timeoutMs, 20);
  }

  close(): void {
    this.socket.destroy();
  }

  private take(): RawAnswer | null {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end === -1) return null;
    const [statusLine, ...lines] = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffered.length < end + 4 + length) return null;
    const body = this.buffered.subarray(end + 4, end + 4 + length).toString();
    this.buffered = this.buffered.subarray(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}

describe.each(COMBOS)('relayed preview connections on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;
  let sandboxId: string;
  let appPort: number;
  const open: RawConnection[] = [];

  const host = (port: number) => `${sandboxId}-${port}.localhost:${appPort}`;
  const connect = () => {
    const connection = new RawConnection(appPort);
    open.push(connection);
    return connection;
  };
  const get = (port: number, path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: ${host(port)}\r\n${headers}\r\n`;
  const api = (method: string, path: string, body?: object) => t.request(method, path, { token: key, body });

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PREVIEW_RATE_LIMIT: String(RATE_LIMIT) }, { runtime, networkProfile: 7 });
    appPort = Number(new URL(t.url).port);
    key = (await t.signupOnPlan('team')).key;
    sandboxId = await startNodeServerSandbox(t, key, SERVER, 3, 30_000);
  });
  afterAll(async () => {
    for (const connection of open) connection.close();
    await t?.close();
  });

  it('answers several requests on one connection, each with X-Forwarded-* and without Paddock credentials', async () => {
    const connection = connect();
    connection.send(get(3000, '/one'));
    const first = JSON.parse((await connection.next()).body);
    expect(first.url).toBe('/one');
    connection.send(get(3000, '/two', `Authorization: Bearer ${key}\r\nCookie: paddock_preview=1.abc; theirs=kept\r\nX-Forwarded-For: 10.9.9.9\r\nX-Forwarded-Proto: gopher\r\n`));
    const second = JSON.parse((await connection.next()).body);
    expect(second.url).toBe('/two');
    expect(second.headers.authorization).toBeUndefined();
    expect(second.headers.cookie).toBe('theirs=kept');
    expect(second.headers['x-forwarded-for']).toBe('10.9.9.9, 127.0.0.1');
    expect(second.headers['x-forwarded-proto']).toBe('http');
    expect(second.headers['x-forwarded-host']).toBe(host(3000));
    for (let i = 0; i < 5; i++) {
      connection.send(get(3000, `/more/${i}`));
      expect(JSON.parse((await connection.next()).body).url).toBe(`/more/${i}`);
    }
    expect(connection.closed).toBe(false);
  });

  it('carries pipelined requests with Content-Length and chunked bodies, answered in order', async () => {
    const connection = connect();
    const chunked = 'POST /chunked HTTP/1.1\r\nHost: ' + host(3000) + '\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n';
    const sized = 'PUT /sized HTTP/1.1\r\nHost: ' + host(3000) + '\r\nContent-Length: 11\r\n\r\nGET /fake\r\n';
    connection.send(get(3000, '/first') + chunked + sized + get(3000, '/last', 'Connection: close\r\n'));
    const answers = [await connection.next(), await connection.next(), await connection.next(), await connection.next()].map((answer) => JSON.parse(answer.body));
    expect(answers.map((a) => [a.method, a.url, a.body])).toEqual([
      ['GET', '/first', ''],
      ['POST', '/chunked', 'hello world'],
      ['PUT', '/sized', 'GET /fake\r\n'],
      ['GET', '/last', ''],
    ]);
    expect(answers.every((a) => a.headers['x-forwarded-host'] === host(3000))).toBe(true);
    await connection.ended();
  });

  it('answers 400 to a request with a malformed chunked body, after the answers before it', async () => {
    const connection = connect();
    connection.send(get(3000, '/good') + `POST /bad HTTP/1.1\r\nHost: ${host(3000)}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nnot-hex\r\n`);
    expect(JSON.parse((await connection.next()).body).url).toBe('/good');
    const refused = await connection.next();
    expect(refused.status).toBe(400);
    expect(refused.body).toBe("The request's chunked body is malformed.\n");
    await connection.ended();
  });

  it('counts every request on a relayed connection against the port limit, then answers 429 and closes', async () => {
    const connection = connect();
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT - 5; i++) {
      connection.send(get(3002, '/'));
      statuses.push((await connection.next()).status);
    }
    // The rest of the minute's allowance, answered slowly, and one more, pipelined in one write: the
    // five slow answers all arrive before the 429.
    connection.send(Array.from({ length: 5 }, () => get(3002, '/slow')).join('') + get(3002, '/'));
    for (let i = 0; i < 5; i++) {
      const answer = await connection.next();
      statuses.push(answer.status);
      expect(answer.body).toBe('slow answer');
    }
    const limited = await connection.next();
    expect(statuses).toEqual(Array.from({ length: RATE_LIMIT }, () => 200));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    await connection.ended();
    // A new connection is refused too: the count is the port's, not the connection's.
    const fresh = connect();
    fresh.send(get(3002, '/'));
    expect((await fresh.next()).status).toBe(429);
  });

  it('re-decides a request naming another host: another port, then the API, on the same connection', async () => {
    const connection = connect();
    connection.send(get(3000, '/here'));
    expect(JSON.parse((await connection.next()).body).url).toBe('/here');
    connection.send(get(3001, '/'));
    expect((await connection.next()).body).toBe('second site');
    connection.send(`GET /v1/sandboxes/${sandboxId} HTTP/1.1\r\nHost: 127.0.0.1:${appPort}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    const fromApi = await connection.next();
    expect(fromApi.status).toBe(200);
    expect(JSON.parse(fromApi.body).id).toBe(sandboxId);
    // Sent only after the connection came back from the relay: the server reads it again.
    connection.send(`GET /v1/sandboxes/${sandboxId} HTTP/1.1\r\nHost: 127.0.0.1:${appPort}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    expect((await connection.next()).status).toBe(200);
  });

  it('hands a WebSocket upgrade after plain requests on the same connection to the upgrade path', async () => {
    const connection = connect();
    connection.send(get(3000, '/before'));
    expect(JSON.parse((await connection.next()).body).url).toBe('/before');
    connection.send(get(3000, '/ws', 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n'));
    const upgraded = await connection.next();
    expect(upgraded.status).toBe(101);
    expect(upgraded.headers['sec-websocket-accept']).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
  });

  it('never lets a request through without the password, on its own connection or one already authenticated, and re-asks after a new password', async () => {
    expect((await api('POST', `/v1/sandboxes/${sandboxId}/ports/3000/protect`, { password: 'first password' })).status).toBe(200);
    const basic = (password: string) => `Authorization: Basic ${Buffer.from(`me:${password}`).toString('base64')}\r\n`;
    const trusted = connect();
    trusted.send(get(3000, '/in', basic('first password')));
    const inside = await trusted.next();
    expect(inside.status).toBe(200);
    expect(JSON.parse(inside.body).headers.authorization).toBeUndefined();

    const stranger = connect();
    stranger.send(get(3000, '/sneak'));
    const refused = await stranger.next();
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('This preview is protected');
    expect(refused.body).not.toContain('"url"');
    await stranger.ended();

    // Every request on the authenticated connection carries the password, as browsers and HTTP clients do...
    trusted.send(get(3000, '/again', basic('first password')));
    expect(JSON.parse((await trusted.next()).body).url).toBe('/again');
    // ...and one that does not (a proxy in front may pool several users' requests on one connection) is asked for it.
    trusted.send(get(3000, '/pooled'));
    const unproven = await trusted.next();
    expect(unproven.status).toBe(401);
    expect(unproven.body).not.toContain('"url"');
    await trusted.ended();

    // A browser's cookie admits the requests that carry it.
    const form = connect();
    form.send(`POST /__paddock/login HTTP/1.1\r\nHost: ${host(3000)}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 23\r\n\r\npassword=first+password`);
    const login = await form.next();
    expect(login.status).toBe(303);
    const cookie = login.headers['set-cookie'].split(';')[0];
    const browser = connect();
    browser.send(get(3000, '/with-cookie', `Cookie: theirs=1; ${cookie}\r\n`));
    expect(JSON.parse((await browser.next()).body).headers.cookie).toBe('theirs=1');
    browser.send(get(3000, '/cookie-again', `Cookie: ${cookie}\r\n`));
    expect(JSON.parse((await browser.next()).body).url).toBe('/cookie-again');
    browser.send(get(3000, '/cookie-forgotten'));
    expect((await browser.next()).status).toBe(401);

    // After the password changes, the old one is refused on a connection it had opened.
    const again = connect();
    again.send(get(3000, '/before-change', basic('first password')));
    expect((await again.next()).status).toBe(200);
    expect((await api('POST', `/v1/sandboxes/${sandboxId}/ports/3000/protect`, { password: 'second password' })).status).toBe(200);
    again.send(get(3000, '/after-change', basic('first password')));
    expect((await again.next()).status).toBe(401);

    expect((await api('DELETE', `/v1/sandboxes/${sandboxId}/ports/3000/protect`)).status).toBe(200);
  });

  it('records activity while one connection keeps sending requests', async () => {
    const connection = connect();
    connection.send(get(3001, '/'));
    await connection.next();
    await sleep(300);
    const before = new Date((await api('GET', `/v1/sandboxes/${sandboxId}`)).body.last_activity_at).getTime();
    await sleep(5500);
    connection.send(get(3001, '/'));
    expect((await connection.next()).body).toBe('second site');
    await sleep(300);
    const after = new Date((await api('GET', `/v1/sandboxes/${sandboxId}`)).body.last_activity_at).getTime();
    expect(after).toBeGreaterThan(before);
  });
});
