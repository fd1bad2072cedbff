// An api node's fast lane between real servers on real sockets: requests for `/fwd/…` go to the target
// (a worker's place), everything else to the lane's own Node HTTP server. Answers leave in order on one
// connection, bodies stream both ways, kept-alive connections to the target are reused, anything unusual
// is served by Node's server as before, an unreachable target is 502 node_unreachable, and a link to a
// node declared lost is cut.
import http, { type IncomingMessage, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { installFastLane, type FastLane } from '../../src/cluster/fast-lane/install.js';
import { NodeLinks } from '../../src/cluster/node-links.js';

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `bytes` on a new connection and reads until `done(text)` or the connection ends. */
function exchange(port: number, bytes: string | Buffer | Array<string | Buffer>, done: (text: string) => boolean = () => false, gapMs = 0): Promise<{ text: string; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (done(text)) {
        socket.destroy();
        resolve({ text, ended: false });
      }
    });
    socket.on('end', () => resolve({ text, ended: true }));
    socket.on('error', reject);
    void (async () => {
      for (const piece of Array.isArray(bytes) ? bytes : [bytes]) {
        socket.write(piece);
        if (gapMs) await sleep(gapMs);
      }
    })();
  });
}
const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, 'g'))?.length ?? 0;

describe('the fast lane of an api node', () => {
  let target: Server;
  let here: Server;
  let port: number;
  let targetPort: number;
  let lane: FastLane;
  const links = new NodeLinks();
  const targetConnections = new Set<Duplex>();
  const seen: IncomingMessage[] = [];
  let routeTo = () => targetPort;
  /** The gated answer's second line waits for the client to have read its first. */
  let openGate = () => {};
  const gate = new Promise<void>((resolve) => (openGate = resolve));

  beforeAll(async () => {
    target = http.createServer((request, response) => {
      seen.push(request);
      if (request.url === '/fwd/stream') {
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        request.resume();
        let left = 3;
        const tick = setInterval(() => {
          response.write(`{"n":${left}}\n`);
          if (--left === 0) {
            clearInterval(tick);
            response.end();
          }
        }, 30);
        return;
      }
      if (request.url === '/fwd/gated') {
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        response.write('{"first":true}\n');
        return void gate.then(() => response.end('{"second":true}\n'));
      }
      if (request.url === '/fwd/early') return void response.writeHead(413, { 'content-type': 'application/json' }).end('{"code":"too_large"}');
      if (request.url === '/fwd/slow') {
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        response.write('{"line":1}\n');
        return void setTimeout(() => response.end('{"line":2}\n'), 2600);
      }
      if (request.url === '/fwd/forever') {
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        return void response.write('{"open":true}\n');
      }
      if (request.url === '/fwd/until-close') {
        request.resume();
        response.useChunkedEncodingByDefault = false;
        response.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
        return void response.end('to the end');
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        response.writeHead(200, { 'content-type': 'application/json', 'x-seen-for': String(request.headers['x-forwarded-for']), 'x-node': String(request.headers['x-paddock-node']) });
        response.end(JSON.stringify({ where: 'target', url: request.url, bytes: body.length, connection: request.headers.connection ?? null }));
      });
    });
    target.on('connection', (socket: Duplex) => targetConnections.add(socket));
    targetPort = await listen(target);
    here = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ where: 'here', url: request.url })));
    });
    const sockets = new WebSocketServer({ noServer: true });
    here.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => sockets.handleUpgrade(request, socket, head, (ws) => ws.on('message', (data) => ws.send(`echo ${String(data)}`))));
    lane = installFastLane(here, {
      route: async (head) => (head.url.startsWith('/fwd/') ? { nodeId: 'worker-1', hostname: '127.0.0.1', port: routeTo(), signed: { 'x-paddock-node': 'api-1' } } : null),
      hold: (nodeId, cut) => links.hold(nodeId, cut),
      closing: () => false,
      connectTimeoutMs: 2000,
    })!;
    here.keepAliveTimeout = 1000;
    port = await listen(here);
  });
  afterAll(async () => {
    lane.close();
    here.closeAllConnections();
    target.closeAllConnections();
    for (const socket of targetConnections) socket.destroy();
    await new Promise((resolve) => here.close(resolve));
    await new Promise((resolve) => target.close(resolve));
  });

  it('passes requests on over one kept-alive connection, with the hop headers changed, and serves the rest here', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (path: string, body = '') =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Record<string, unknown> }>((resolve, reject) => {
        const request = http.request(
          { port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.1', 'content-length': Buffer.byteLength(body) } },
          (answer) => {
            let text = '';
            answer.on('data', (chunk) => (text += chunk));
            answer.on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers, body: JSON.parse(text) }));
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    const before = targetConnections.size;
    const first = await ask('/fwd/a', '{"command":"true"}');
    expect(first.body).toEqual({ where: 'target', url: '/fwd/a', bytes: 18, connection: null });
    expect(first.headers['x-seen-for']).toBe('198.51.100.1, 127.0.0.1');
    expect(first.headers['x-node']).toBe('api-1');
    // The target's Connection and Keep-Alive were about the hop between the nodes.
    expect([first.headers.connection, first.headers['keep-alive']]).toEqual([undefined, undefined]);
    expect((await ask('/local', 'x')).body).toEqual({ where: 'here', url: '/local' });
    expect((await ask('/fwd/b')).body).toMatchObject({ where: 'target', url: '/fwd/b', bytes: 0 });
    const big = 'y'.repeat(3 * 1024 * 1024);
    expect((await ask('/fwd/big', big)).body).toMatchObject({ url: '/fwd/big', bytes: big.length });
    // One connection to the target carried every forwarded request.
    expect(targetConnections.size - before).toBe(1);
    agent.destroy();
  });

  it('opens a new connection to the target when the kept-alive one was closed, or spoke out of turn, while idle', async () => {
    const ask = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).json();
    expect(await ask('/fwd/idle-1')).toMatchObject({ where: 'target', url: '/fwd/idle-1' });
    const before = new Set(targetConnections);
    // The target ends its side of every idle connection, as a worker restarting would.
    for (const socket of before) socket.end();
    await sleep(100);
    expect(await ask('/fwd/idle-2')).toMatchObject({ where: 'target', url: '/fwd/idle-2' });
    const reopened = [...targetConnections].filter((socket) => !before.has(socket) && !socket.destroyed);
    expect(reopened.length).toBeGreaterThan(0);
    // Bytes from an idle connection: it is not in step any more, so the lane never sends on it again.
    for (const socket of reopened) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
    await sleep(100);
    expect(reopened.every((socket) => socket.destroyed)).toBe(true);
    expect(await ask('/fwd/idle-3')).toMatchObject({ where: 'target', url: '/fwd/idle-3' });
  });

  it('answers requests sent in one write in their order, forwarded and local alike', async () => {
    const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: api\r\n\r\n`;
    const paths = ['/fwd/1', '/here/2', '/fwd/3', '/fwd/stream', '/here/5', '/fwd/6'];
    const { text } = await exchange(port, paths.map(request).join(''), (all) => count(all, /"url":"\/(?:fwd|here)\/\d"/) === 5 && all.includes('/fwd/6'));
    const order = [...text.matchAll(/"url":"(\/\w+\/\w+)"|\{"n":(\d)\}/g)].map((match) => match[1] ?? `n${match[2]}`);
    expect(order).toEqual(['/fwd/1', '/here/2', '/fwd/3', 'n3', 'n2', 'n1', '/here/5', '/fwd/6']);
  });

  it('streams an answer as it comes, and a head split into small pieces still takes the lane', async () => {
    const { text } = await exchange(port, 'GET /fwd/gated HTTP/1.1\r\nHost: api\r\n\r\n', (all) => {
      if (all.includes('"first"')) openGate();
      return all.includes('0\r\n\r\n');
    });
    expect(text).toMatch(/"first":true[\s\S]*"second":true/);
    const pieces = 'GET /fwd/split HTTP/1.1\r\nHost: api\r\n\r\n'.match(/.{1,6}/gs)!;
    const split = await exchange(port, pieces, (all) => all.includes('}'), 20);
    expect(split.text).toMatch(/"where":"target","url":"\/fwd\/split"/);
  });

  it("leaves what it does not pass on plainly to Node's server: upgrades, chunked bodies, Expect, a malformed head, a stalled head", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/socket`);
    const echoed = await new Promise<string>((resolve, reject) => {
      ws.on('open', () => ws.send('hi'));
      ws.on('message', (data) => resolve(String(data)));
      ws.on('error', reject);
    });
    expect(echoed).toBe('echo hi');
    ws.close();
    const chunked = await exchange(port, 'POST /fwd/chunked HTTP/1.1\r\nHost: api\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n', (all) => all.includes('}'));
    expect(chunked.text).toMatch(/"where":"here","url":"\/fwd\/chunked"/);
    const expecting = await exchange(port, 'POST /fwd/expect HTTP/1.1\r\nHost: api\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok', (all) => all.includes('}'));
    expect(expecting.text).toMatch(/"where":"here"/);
    const malformed = await exchange(port, 'GET /fwd/x HTTP/1.1\r\nHost: api\r\nBad Header: x\r\n\r\n');
    expect(malformed.text).toMatch(/^HTTP\/1\.1 400 /);
    const stalled = await exchange(port, ['GET /fwd/stalled HTTP/1.1\r\nHo', 'st: api\r\n\r\n'], (all) => all.includes('}'), 2500);
    expect(stalled.text).toMatch(/"where":"here","url":"\/fwd\/stalled"/);
  });

  it('ends the client connection after an answer delimited by its connection, and answers HEAD without a body', async () => {
    const untilClose = await exchange(port, 'GET /fwd/until-close HTTP/1.1\r\nHost: api\r\n\r\nGET /fwd/after HTTP/1.1\r\nHost: api\r\n\r\n');
    expect(untilClose.ended).toBe(true);
    expect(untilClose.text).toMatch(/Connection: close\r\n\r\nto the end$/);
    const head = await exchange(port, 'HEAD /fwd/h HTTP/1.1\r\nHost: api\r\n\r\nGET /fwd/after-head HTTP/1.1\r\nHost: api\r\n\r\n', (all) => all.includes('after-head'));
    expect(count(head.text, /HTTP\/1\.1 200/g)).toBe(2);
  });

  it('ends the client connection when the target answered before the whole body was sent', async () => {
    const { text, ended } = await exchange(port, ['POST /fwd/early HTTP/1.1\r\nHost: api\r\nContent-Length: 1000000\r\n\r\n', Buffer.alloc(100_000, 1)]);
    expect(ended).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 413 [\s\S]*"too_large"/);
  });

  it('answers 502 node_unreachable when the target cannot be reached', async () => {
    const closed = net.createServer();
    const closedPort = await listen(closed as unknown as Server);
    await new Promise((resolve) => closed.close(resolve));
    routeTo = () => closedPort;
    try {
      const { text } = await exchange(port, 'GET /fwd/nobody HTTP/1.1\r\nHost: api\r\n\r\n');
      expect(text).toMatch(/^HTTP\/1\.1 502 /);
      expect(text).toMatch(/"code":"node_unreachable"/);
      expect(text).toMatch(/ECONNREFUSED/);
    } finally {
      routeTo = () => targetPort;
    }
  });

  it('cuts a stream to a node the registry no longer holds alive, and drops the connection to it', async () => {
    const cut = new Promise<{ text: string; ended: boolean }>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('close', () => resolve({ text, ended: true }));
      socket.write('GET /fwd/forever HTTP/1.1\r\nHost: api\r\n\r\n');
    });
    await sleep(200);
    expect(links.count('worker-1')).toBe(1);
    const upstreams = seen.filter((request) => request.url === '/fwd/forever').map((request) => request.socket);
    await links.cutLost({ get: async () => null } as never, { warn: () => {} } as never);
    const { text } = await cut;
    expect(text).toMatch(/"open":true/);
    expect(links.count('worker-1')).toBe(0);
    await sleep(100);
    expect(upstreams.every((socket) => socket.destroyed)).toBe(true);
  });

  it("ends a connection idle for the server's keep-alive time, the lane's and one handed to Node's server alike", async () => {
    const started = Date.now();
    const idle = await exchange(port, 'GET /fwd/idle HTTP/1.1\r\nHost: api\r\n\r\n');
    expect(idle).toMatchObject({ ended: true });
    const handed = await exchange(port, 'POST /fwd/chunked-idle HTTP/1.1\r\nHost: api\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
    expect(handed.ended).toBe(true);
    expect(handed.text).toMatch(/"where":"here"/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * 900);
  });

  it('keeps a quiet stream open past the keep-alive time, after a request served here on the same connection', async () => {
    const { text } = await exchange(port, 'GET /here/first HTTP/1.1\r\nHost: api\r\n\r\nGET /fwd/slow HTTP/1.1\r\nHost: api\r\n\r\n', (all) => all.includes('"line":2'));
    expect(text).toMatch(/"where":"here"[\s\S]*"line":1[\s\S]*"line":2/);
  });

  it('ends idle connections when the server closes', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    lane.closeIdle();
    await closed;
  });
});
