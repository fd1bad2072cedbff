// The forwarder between real servers on real sockets: bodies stream both ways without buffering,
// hop-by-hop headers stay behind, WebSocket upgrades are piped (and refused upgrades relayed), a target
// that cannot be reached is 502 node_unreachable, and a WebSocket whose target dies closes 4003 node_lost.
// Links to a node the registry stops holding alive (a partition sends no reset) are cut at the next check.
import http, { type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { FastifyBaseLogger } from 'fastify';
import { forwardRequest, forwardUpgrade, type Hop } from '../../src/cluster/forward.js';
import { NodeLinks } from '../../src/cluster/node-links.js';
import type { NodeDirectory, NodeView } from '../../src/nodes/contract.js';

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const connections = new Set<Duplex>();
/** Upgraded sockets are not HTTP connections any more: closeAllConnections() leaves them open. */
const track = (server: Server) => server.on('connection', (socket: Duplex) => connections.add(socket));
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('forwarding to another node', () => {
  let target: Server;
  let front: Server;
  let frontUrl: string;
  let hop: Hop;
  let linkedFront: Server;
  let linkedUrl: string;
  const links = new NodeLinks();
  // The registry as the front door reads it: only whether node-b is alive matters here.
  let nodeBAlive = true;
  const directory = { get: async (id: string) => ({ id, alive: id === 'node-b' && nodeBAlive }) as NodeView } as unknown as NodeDirectory;
  const log = { warn: () => {} } as unknown as FastifyBaseLogger;
  const targetSockets = new Set<Duplex>();
  const sockets = new WebSocketServer({ noServer: true });

  beforeAll(async () => {
    target = http.createServer((request, response) => {
      if (request.url === '/echo') {
        response.writeHead(200, { 'content-type': 'application/octet-stream', 'x-seen': JSON.stringify(request.headers) });
        response.flushHeaders();
        request.pipe(response);
      } else response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no","code":"not_found"}');
    });
    target.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      targetSockets.add(socket);
      if (request.url !== '/ws') return void socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"code":"nope"} ');
      sockets.handleUpgrade(request, socket, head, (ws) => ws.on('message', (data, binary) => ws.send(data, { binary })));
    });
    track(target);
    hop = { address: await listen(target), signed: { 'x-paddock-node': 'node-a', 'x-paddock-node-signature': 'sig' }, clientAddress: '203.0.113.7' };
    front = http.createServer((request, response) => forwardRequest(request, response, hop));
    front.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => forwardUpgrade(request, socket, head, hop));
    linkedFront = http.createServer((request, response) => forwardRequest(request, response, { ...hop, nodeId: 'node-b', links }));
    linkedFront.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => forwardUpgrade(request, socket, head, { ...hop, nodeId: 'node-b', links }));
    track(linkedFront);
    linkedUrl = await listen(linkedFront);
    track(front);
    frontUrl = await listen(front);
  });
  afterAll(async () => {
    sockets.close();
    for (const socket of connections) socket.destroy();
    await close(front);
    await close(linkedFront);
    await close(target);
  });

  it('streams a body both ways: each chunk comes back before the next is sent', async () => {
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = http.request(
        `${frontUrl}/echo`,
        { method: 'POST', headers: { connection: 'keep-alive, x-private', 'x-private': 'hop', 'x-forwarded-for': '198.51.100.1', 'x-paddock-placed': '1' } },
        resolve,
      );
      request.on('error', reject);
      request.write('first;');
      (globalThis as { pending?: http.ClientRequest }).pending = request;
    });
    const request = (globalThis as { pending?: http.ClientRequest }).pending!;
    const seen = JSON.parse(String(answer.headers['x-seen']));
    expect(seen['x-forwarded-for']).toBe('198.51.100.1, 203.0.113.7');
    expect(seen['x-paddock-node']).toBe('node-a');
    expect(seen['x-private']).toBeUndefined();
    expect(seen['x-paddock-placed']).toBeUndefined();
    expect(seen.host).toBe(new URL(frontUrl).host);
    const received: string[] = [];
    for await (const chunk of answer) {
      received.push(String(chunk));
      if (received.join('') === 'first;') request.write('second;');
      else if (received.join('') === 'first;second;') request.end('third');
    }
    expect(received.join('')).toBe('first;second;third');
    expect(received.length).toBeGreaterThanOrEqual(3);
  });

  it('relays the target’s answer as it is, errors included', async () => {
    const reply = await fetch(`${frontUrl}/missing`);
    expect(reply.status).toBe(404);
    expect(await reply.json()).toEqual({ error: 'no', code: 'not_found' });
  });

  it('pipes a WebSocket upgrade both ways, and relays a refused one', async () => {
    const ws = new WebSocket(`${frontUrl.replace('http', 'ws')}/ws`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const echoed = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
    ws.send('over the hop');
    expect(await echoed).toBe('over the hop');
    ws.close();
    const refused = new WebSocket(`${frontUrl.replace('http', 'ws')}/other`);
    const status = await new Promise<number>((resolve) => refused.once('unexpected-response', (request, response) => (request.destroy(), resolve(response.statusCode ?? 0))));
    expect(status).toBe(404);
  });

  it('closes a forwarded WebSocket with 4003 node_lost when the target goes away', async () => {
    targetSockets.clear();
    const ws = new WebSocket(`${frontUrl.replace('http', 'ws')}/ws`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
    for (const socket of targetSockets) socket.destroy();
    expect(await closed).toEqual({ code: 4003, reason: 'node_lost' });
  });

  it('answers 502 node_unreachable when the target cannot be reached', async () => {
    const gone = http.createServer();
    const address = await listen(gone);
    await close(gone);
    const lostFront = http.createServer((request, response) => forwardRequest(request, response, { ...hop, address }));
    lostFront.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => forwardUpgrade(request, socket, head, { ...hop, address }));
    track(lostFront);
    const url = await listen(lostFront);
    const reply = await fetch(`${url}/v1/sandboxes/sbx_x/exec`, { method: 'POST', body: '{}' });
    expect(reply.status).toBe(502);
    expect(await reply.json()).toEqual({ code: 'node_unreachable', error: 'the node that serves this could not be reached: ECONNREFUSED' });
    const ws = new WebSocket(`${url.replace('http', 'ws')}/ws`);
    expect(await new Promise<number>((resolve) => ws.once('unexpected-response', (request, response) => (request.destroy(), resolve(response.statusCode ?? 0))))).toBe(502);
    for (const socket of connections) socket.destroy();
    await close(lostFront);
  });

  it('cuts the WebSockets and streams to a node once the registry no longer holds it alive', async () => {
    nodeBAlive = true;
    const ws = new WebSocket(`${linkedUrl.replace('http', 'ws')}/ws`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
    const request = http.request(`${linkedUrl}/echo`, { method: 'POST' });
    const answer = await new Promise<IncomingMessage>((resolve, reject) => request.on('response', resolve).on('error', reject).write('open;'));
    const firstChunk = await new Promise<string>((resolve) => answer.once('data', (chunk) => resolve(String(chunk))));
    expect(firstChunk).toBe('open;');
    const streamEnded = new Promise<boolean>((resolve) => answer.once('close', () => resolve(answer.complete)));
    expect(links.count('node-b')).toBe(2);
    // Alive: the check leaves both open, and the WebSocket still answers.
    await links.cutLost(directory, log);
    expect(links.count('node-b')).toBe(2);
    const echoed = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
    ws.send('still here');
    expect(await echoed).toBe('still here');
    // Declared lost: both target sockets stay open (no reset arrives), yet the client sees the end.
    nodeBAlive = false;
    await links.cutLost(directory, log);
    expect(await closed).toEqual({ code: 4003, reason: 'node_lost' });
    expect(await streamEnded).toBe(false);
    expect(links.count('node-b')).toBe(0);
    request.destroy();
  });

  it('answers 502 node_unreachable when the target never accepts the connection', async () => {
    // TEST-NET-1 is never routed: the SYN goes unanswered (or the host says at once that it has no route).
    const blackhole = http.createServer((request, response) => forwardRequest(request, response, { ...hop, address: 'http://192.0.2.1:9', connectTimeoutMs: 300 }));
    track(blackhole);
    const url = await listen(blackhole);
    const started = Date.now();
    const reply = await fetch(`${url}/v1/sandboxes/sbx_x/exec`, { method: 'POST', body: '{}' });
    expect(reply.status).toBe(502);
    expect((await reply.json()).code).toBe('node_unreachable');
    expect(Date.now() - started).toBeLessThan(3000);
    await close(blackhole);
  });
});
