// Requests the router or Node's HTTP parser refuses before any route runs answer the spec's
// `{"error": "<message>"}` naming the problem, not Fastify's `{"error": "Bad Request", "message":
// "Client Error", "statusCode": 400}`. Each case is one the route fuzzer found (fuzz-routes.test.ts,
// seed 162026, request number given), sent byte for byte.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Writes `head` (and `body`) on a fresh connection and reads the one answer until the server closes. */
function raw(t: TestApp, head: Buffer | string, body = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(t.url).port), '127.0.0.1', () => socket.end(Buffer.concat([Buffer.from(head as string, 'latin1'), Buffer.from(body)])));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headers, ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(headers.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
  });
}

describe.each(BACKENDS)('requests refused before routing on %s', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const request = (target: string, extraHeaders = '', method = 'GET') => `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n${extraHeaders}\r\n`;

  it('answers a path whose percent-encoding is not UTF-8 with a 400 naming it (fuzz #40: %ED%A0%80)', async () => {
    for (const target of ['/v1/sandboxes/%ED%A0%80/files/content', '/v1/pipelines/%ZZ/versions', '/v1/alerts/%ZZ/resolve']) {
      const answer = await raw(t, request(target));
      expect(answer.status, target).toBe(400);
      expect(answer.headers).toMatch(/content-type: application\/json/i);
      expect(JSON.parse(answer.body)).toEqual({ error: 'the path is not valid: a percent-encoded segment does not decode to UTF-8 text', code: 'invalid_path' });
    }
  });

  it('answers a path segment over 400 characters with a 414 that does not echo it (fuzz #7)', async () => {
    const answer = await raw(t, request(`/v1/account/keys/${'a'.repeat(3000)}`, '', 'DELETE'));
    expect(answer.status).toBe(414);
    expect(JSON.parse(answer.body)).toEqual({ error: 'a path segment is longer than 400 characters', code: 'uri_too_long' });
  });

  it('answers raw non-ASCII bytes in the request target with a JSON 400 (fuzz #1)', async () => {
    const answer = await raw(t, request('/readyz?a=\xaa\xc4'));
    expect(answer.status).toBe(400);
    expect(answer.headers).toMatch(/content-type: application\/json/i);
    const body = JSON.parse(answer.body);
    expect(body.code).toBe('malformed_request');
    expect(body.error).toMatch(/^the HTTP request is malformed/);
  });

  it('answers headers over 16 KiB with a JSON 431', async () => {
    const answer = await raw(t, request('/v1/account', `X-Big: ${'v'.repeat(20_000)}\r\n`));
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({ error: 'the request head is too large: the limit is 16 KiB', code: 'headers_too_large' });
  });

  it('still serves the connection-level refusals without disturbing the server', async () => {
    expect((await t.request('GET', '/v1/account', { token: key })).status).toBe(200);
  });
});
