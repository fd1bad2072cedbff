// Placement on an `all` node that chooses itself: the create is served by this node's own routes in
// process, with the body placement read, never sent over HTTP to its own address; when this node turns
// out to be full (503 node_full) the next candidate is tried over HTTP as usual. Real sockets throughout.
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeCreate, type LocalAnswer } from '../../src/cluster/placement.js';
import type { NodeDirectory, NodeView } from '../../src/nodes/contract.js';

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
const candidate = (id: string, address: string, free: number) =>
  ({ id, role: 'all', address, state: 'active', alive: true, capacity: { cpus: 2, memory_bytes: 0, disk_bytes: 0, max_sandboxes: 10 }, sandboxes: 10 - free }) as NodeView;

describe('placement choosing this node', () => {
  const hits = { self: 0, other: 0 };
  let selfAddress: Server;
  let other: Server;
  let front: Server;
  let frontUrl: string;
  let here: (body: Buffer) => LocalAnswer;
  const servedHere: { url: string; authorization: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    // This node's own listening address: placement must never call it.
    selfAddress = http.createServer((request, response) => {
      hits.self++;
      response.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"over-http"}');
    });
    other = http.createServer((request, response) => {
      hits.other++;
      request.resume();
      request.on('end', () => response.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"from-other"}'));
    });
    const selfUrl = await listen(selfAddress);
    const otherUrl = await listen(other);
    // This node is the freer one as well as preferred: it leads the order.
    const candidates = [candidate('other', otherUrl, 1), candidate('self', selfUrl, 5)];
    const nodes: NodeDirectory = { selfId: 'self', get: async () => null, candidates: async () => candidates, workers: async () => candidates };
    front = http.createServer((request, response) => {
      void placeCreate(request, response, {
        nodes,
        hopTo: (_request, node) => ({ address: node.address, signed: {}, clientAddress: '127.0.0.1' }),
        preferSelf: true,
        serveHere: async (placed, body) => {
          servedHere.push({ url: placed.url ?? '', authorization: placed.headers.authorization, body: body.toString('utf8') });
          return here(body);
        },
        bodyLimitBytes: 1024 * 1024,
        retryAfterSeconds: 1,
      });
    });
    frontUrl = await listen(front);
  });
  afterAll(async () => {
    await close(front);
    await close(other);
    await close(selfAddress);
  });

  const create = () =>
    fetch(`${frontUrl}/v1/sandboxes`, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: JSON.stringify({ template: 'python-311' }) });

  it('serves the create here, with the body it read, and answers what this node answered', async () => {
    here = (body) => ({ status: 201, headers: { 'content-type': 'application/json', 'x-served': 'here' }, body: Buffer.from(`{"id":"here","echo":${body.toString('utf8')}}`) });
    const answer = await create();
    expect(answer.status).toBe(201);
    expect(answer.headers.get('x-served')).toBe('here');
    expect(await answer.json()).toEqual({ id: 'here', echo: { template: 'python-311' } });
    expect(servedHere).toEqual([{ url: '/v1/sandboxes', authorization: 'Bearer k', body: '{"template":"python-311"}' }]);
    expect(hits).toEqual({ self: 0, other: 0 });
  });

  it('tries the next candidate over HTTP when this node is full', async () => {
    here = () => ({ status: 503, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"error":"full","code":"node_full"}') });
    const answer = await create();
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({ id: 'from-other' });
    expect(servedHere).toHaveLength(2);
    expect(hits).toEqual({ self: 0, other: 1 });
  });
});
