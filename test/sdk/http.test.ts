// The SDK's retries against real HTTP servers: a local node:http server that misbehaves on purpose
// (429, a dropped connection, 503), and the real Paddock app, where a retried POST must not do its work twice.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, Paddock, ServerError } from '../../sdk/src/index.js';
import { startApp, type TestApp } from '../helpers/app.js';

interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  atMs: number;
}

/** A server that answers each request with the next scripted behaviour, then 200 `{"ok":true}`. */
class ScriptedServer {
  readonly seen: Seen[] = [];
  private script: ((response: http.ServerResponse) => void)[] = [];
  private server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      this.seen.push({ method: request.method!, url: request.url!, idempotencyKey: request.headers['idempotency-key'] as string | undefined, atMs: Date.now() });
      const next = this.script.shift();
      if (next) return next(response);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, attempt: this.seen.length }));
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  then(...steps: ((response: http.ServerResponse) => void)[]): void {
    this.seen.length = 0;
    this.script = steps;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const status =
  (code: number, headers: Record<string, string> = {}) =>
  (response: http.ServerResponse) =>
    response.writeHead(code, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ error: `scripted ${code}`, code: code === 429 ? 'rate_limited' : 'unavailable' }));
const dropConnection = (response: http.ServerResponse) => response.socket?.destroy();

describe('SDK retries against a scripted HTTP server', () => {
  const server = new ScriptedServer();
  let paddock: Paddock;

  beforeAll(async () => {
    await server.start();
    paddock = new Paddock({ url: server.url, apiKey: 'svc_sk_test' });
  });
  afterAll(() => server.close());

  it('waits what Retry-After asks after a 429, then succeeds', async () => {
    server.then(status(429, { 'retry-after': '1' }));
    const answer = await paddock.http.request<{ ok: boolean }>('GET', '/v1/anything');
    expect(answer).toMatchObject({ ok: true, attempt: 2 });
    expect(server.seen[1].atMs - server.seen[0].atMs).toBeGreaterThanOrEqual(950);
  });

  it('honours X-RateLimit-Reset (epoch seconds) when there is no Retry-After', async () => {
    const resetSeconds = Math.ceil(Date.now() / 1000) + 1;
    server.then(status(429, { 'x-ratelimit-reset': String(resetSeconds) }));
    await paddock.http.request('POST', '/v1/anything', { body: {} });
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1].atMs).toBeGreaterThanOrEqual(resetSeconds * 1000 - 50);
  });

  it('retries a GET whose connection dropped', async () => {
    server.then(dropConnection);
    expect(await paddock.http.request('GET', '/v1/anything')).toMatchObject({ ok: true, attempt: 2 });
  });

  it('retries a POST whose connection dropped with the same Idempotency-Key', async () => {
    server.then(dropConnection);
    expect(await paddock.http.request('POST', '/v1/anything', { body: { a: 1 } })).toMatchObject({ ok: true, attempt: 2 });
    expect(server.seen[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.seen[1].idempotencyKey).toBe(server.seen[0].idempotencyKey);
  });

  it('does not retry a POST sent with idempotent: false, and says the connection failed', async () => {
    server.then(dropConnection);
    const error = await paddock.http.request('POST', '/v1/anything', { body: {}, idempotent: false }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'connection_error', method: 'POST', path: '/v1/anything' });
    expect(server.seen).toHaveLength(1);
    expect(server.seen[0].idempotencyKey).toBeUndefined();
  });

  it('retries a 503, and gives up after maxRetries with a ServerError', async () => {
    server.then(status(503));
    expect(await paddock.http.request('GET', '/v1/anything')).toMatchObject({ ok: true, attempt: 2 });
    const impatient = new Paddock({ url: server.url, apiKey: 'svc_sk_test', maxRetries: 1 });
    server.then(status(503), status(503), status(503));
    await expect(impatient.http.request('GET', '/v1/anything')).rejects.toBeInstanceOf(ServerError);
    expect(server.seen).toHaveLength(2);
  });
});

describe('SDK retries against the real Paddock app', () => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startApp('sqlite');
    apiKey = (await t.signup()).key;
  });
  afterAll(() => t?.close());

  it('a POST whose answer was lost is retried with the same Idempotency-Key and creates one resource', async () => {
    let calls = 0;
    const keys: string[] = [];
    // The first request reaches the server and does its work; its answer is then lost on the way back.
    const losingFetch: typeof fetch = async (input, init) => {
      keys.push(new Headers(init?.headers).get('idempotency-key') ?? '');
      const response = await fetch(input, init);
      if (++calls === 1) {
        await response.arrayBuffer();
        throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      }
      return response;
    };
    const paddock = new Paddock({ url: t.url, apiKey, fetch: losingFetch });
    const body = { name: 'retried-once', stages: [{ name: 'build', type: 'command', command: 'make' }] };
    const created = await paddock.http.request<{ id: string; name: string }>('POST', '/v1/pipelines', { body });
    expect(calls).toBe(2);
    expect(keys[1]).toBe(keys[0]);
    expect(created.name).toBe('retried-once');
    const listed = await t.request('GET', '/v1/pipelines', { token: apiKey });
    const named = (Array.isArray(listed.body) ? listed.body : listed.body.items).filter((pipeline: { name: string }) => pipeline.name === 'retried-once');
    expect(named.map((pipeline: { id: string }) => pipeline.id)).toEqual([created.id]);
  });
});
