// Node-to-node signatures: what verifies, what a tampered, stale or foreign one gets (401
// node_auth_failed from a real server), that a verified request's client address is what per-IP rate
// limits count, and that a node without a secret ignores the headers.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_SIGNATURE_HEADER, NODE_TIME_HEADER, NodeSigner, SIGNATURE_REUSE_MS, signNodeRequest, VerifiedSignatures, verifyNodeRequest, type NodeRequest } from '../../src/cluster/node-auth.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const secret = randomBytes(32);
const request: NodeRequest = { method: 'POST', path: '/v1/sandboxes/sbx_1/exec?x=1', nodeId: 'node-a', clientAddress: '203.0.113.7', placed: false };

describe('node request signatures', () => {
  it('verifies what it signed and gives back who sent it for whom', () => {
    const headers = signNodeRequest(secret, { ...request, placed: true });
    expect(verifyNodeRequest(secret, 'POST', request.path, headers)).toEqual({ kind: 'valid', request: { ...request, placed: true } });
  });

  it('refuses a signature over anything else, or made with another secret', () => {
    const headers = signNodeRequest(secret, request);
    const refused = { kind: 'invalid', reason: 'the node signature does not match' };
    expect(verifyNodeRequest(secret, 'GET', request.path, headers)).toEqual(refused);
    expect(verifyNodeRequest(secret, 'POST', '/v1/sandboxes/sbx_2/exec?x=1', headers)).toEqual(refused);
    expect(verifyNodeRequest(secret, 'POST', request.path, { ...headers, 'x-paddock-node': 'node-b' })).toEqual(refused);
    expect(verifyNodeRequest(secret, 'POST', request.path, { ...headers, 'x-paddock-client-address': '198.51.100.1' })).toEqual(refused);
    expect(verifyNodeRequest(secret, 'POST', request.path, { ...headers, 'x-paddock-placed': '1' })).toEqual(refused);
    const flipped = headers[NODE_SIGNATURE_HEADER].replace(/^./, (c) => (c === '0' ? '1' : '0'));
    expect(verifyNodeRequest(secret, 'POST', request.path, { ...headers, [NODE_SIGNATURE_HEADER]: flipped })).toEqual(refused);
    expect(verifyNodeRequest(randomBytes(32), 'POST', request.path, headers)).toEqual(refused);
  });

  it('refuses a signature older (or newer) than 30 s, and incomplete headers', () => {
    const now = Date.now();
    expect(verifyNodeRequest(secret, 'POST', request.path, signNodeRequest(secret, request, now - 29_000), now).kind).toBe('valid');
    expect(verifyNodeRequest(secret, 'POST', request.path, signNodeRequest(secret, request, now - 31_000), now)).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('too old') });
    expect(verifyNodeRequest(secret, 'POST', request.path, signNodeRequest(secret, request, now + 31_000), now).kind).toBe('invalid');
    const { [NODE_TIME_HEADER]: _time, ...withoutTime } = signNodeRequest(secret, request);
    expect(verifyNodeRequest(secret, 'POST', request.path, withoutTime)).toEqual({ kind: 'invalid', reason: 'the node headers are incomplete' });
    expect(verifyNodeRequest(secret, 'POST', request.path, {})).toEqual({ kind: 'unsigned' });
  });
});

describe('signing the same request again, and verifying a signature seen before', () => {
  it('gives the same request the same headers for a second, and signs anything else anew', () => {
    const signer = new NodeSigner(secret, 'node-a');
    const now = Date.now();
    const first = signer.sign('POST', request.path, request.clientAddress, false, now);
    expect(verifyNodeRequest(secret, 'POST', request.path, first, now).kind).toBe('valid');
    expect(signer.sign('POST', request.path, request.clientAddress, false, now + SIGNATURE_REUSE_MS - 1)).toBe(first);
    expect(signer.sign('POST', request.path, request.clientAddress, false, now + SIGNATURE_REUSE_MS)).not.toEqual(first);
    for (const other of [
      signer.sign('GET', request.path, request.clientAddress, false, now),
      signer.sign('POST', `${request.path}&y=2`, request.clientAddress, false, now),
      signer.sign('POST', request.path, '198.51.100.1', false, now),
      signer.sign('POST', request.path, request.clientAddress, true, now),
    ]) {
      expect(other[NODE_SIGNATURE_HEADER]).not.toBe(first[NODE_SIGNATURE_HEADER]);
    }
  });

  it('accepts a remembered signature only over the same text, and never past its 30 s', () => {
    const verified = new VerifiedSignatures();
    const now = Date.now();
    const headers = signNodeRequest(secret, request, now);
    expect(verifyNodeRequest(secret, 'POST', request.path, headers, now, verified).kind).toBe('valid');
    expect(verified.get(headers[NODE_SIGNATURE_HEADER])).toBeDefined();
    // Seen before: valid again without the secret being needed (a wrong one would refuse it otherwise)...
    expect(verifyNodeRequest(randomBytes(32), 'POST', request.path, headers, now + 1000, verified).kind).toBe('valid');
    // ...but only for exactly what was signed, and within its time.
    const refused = { kind: 'invalid', reason: 'the node signature does not match' };
    expect(verifyNodeRequest(secret, 'GET', request.path, headers, now, verified)).toEqual(refused);
    expect(verifyNodeRequest(secret, 'POST', request.path, { ...headers, 'x-paddock-client-address': '198.51.100.1' }, now, verified)).toEqual(refused);
    expect(verifyNodeRequest(secret, 'POST', request.path, { ...headers, 'x-paddock-placed': '1' }, now, verified)).toEqual(refused);
    expect(verifyNodeRequest(secret, 'POST', request.path, headers, now + 31_000, verified)).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('too old') });
    // A refused signature is not remembered.
    const forged = signNodeRequest(randomBytes(32), request, now);
    expect(verifyNodeRequest(secret, 'POST', request.path, forged, now, verified)).toEqual(refused);
    expect(verified.get(forged[NODE_SIGNATURE_HEADER])).toBeUndefined();
  });
});

describe.each(BACKENDS)('node headers on a real server (%s)', (backend) => {
  let clustered: TestApp;
  let lone: TestApp;
  beforeAll(async () => {
    clustered = await startApp(backend, { PADDOCK_CLUSTER_SECRET: secret.toString('base64'), PADDOCK_SECRETS_KEY: randomBytes(32).toString('hex'), PADDOCK_RATE_LIMIT_OPEN: '2' });
    lone = await startApp(backend);
  });
  afterAll(async () => {
    await clustered?.close();
    await lone?.close();
  });

  const signed = (path: string, clientAddress: string) => signNodeRequest(Buffer.from(secret.toString('base64')), { method: 'GET', path, nodeId: 'node-b', clientAddress, placed: false });

  it('answers a forged or stale node request 401 node_auth_failed', async () => {
    const forged = await clustered.request('GET', '/healthz', { headers: { ...signNodeRequest(randomBytes(32), { ...request, method: 'GET', path: '/healthz' }) } });
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ code: 'node_auth_failed', error: 'node-to-node request refused: the node signature does not match' });
    const stale = signNodeRequest(Buffer.from(secret.toString('base64')), { ...request, method: 'GET', path: '/healthz' }, Date.now() - 60_000);
    expect((await clustered.request('GET', '/healthz', { headers: stale })).body.code).toBe('node_auth_failed');
    expect((await clustered.request('GET', '/healthz', { headers: signed('/healthz', '203.0.113.9') })).status).toBe(200);
  });

  it('counts a signed request against the client address it carries, not the node that sent it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await clustered.request('GET', '/v1/account', { headers: signed('/v1/account', '203.0.113.50') })).status);
    expect(statuses).toEqual([401, 401, 429]);
    expect((await clustered.request('GET', '/v1/account', { headers: signed('/v1/account', '203.0.113.51') })).status).toBe(401);
  });

  it('ignores node headers on a node without a cluster secret', async () => {
    const reply = await lone.request('GET', '/healthz', { headers: { ...signNodeRequest(randomBytes(32), { ...request, method: 'GET', path: '/healthz' }) } });
    expect(reply.status).toBe(200);
  });
});
