// Every error body carries a stable code from the catalogue (and `field` when one field is at fault),
// including requests Node's HTTP server would answer or drop before routing; the OpenAPI document lists
// the same codes.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODE_NAMES, ERROR_CODES } from '../../src/core/error-codes.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type Reply, type TestApp } from '../helpers/app.js';

/** Sends raw bytes and collects the whole answer until the server closes the connection. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close after ${JSON.stringify(answer.slice(0, 200))}`));
    }, 5_000);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on('error', () => undefined);
  });
}

/** Status, headers (lower-case) and the JSON body of a raw HTTP/1.1 answer (Content-Length or chunked). */
function parseRaw(answer: string): { status: number; headers: Record<string, string>; body: any } {
  const end = answer.indexOf('\r\n\r\n');
  expect(end, `not an HTTP answer: ${JSON.stringify(answer.slice(0, 200))}`).toBeGreaterThan(0);
  const [statusLine, ...lines] = answer.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  let body = answer.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = '';
    for (let at = 0; ;) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = parseInt(body.slice(at, lineEnd), 16);
      if (!size) break;
      decoded += body.slice(lineEnd + 2, lineEnd + 2 + size);
      at = lineEnd + 2 + size + 2;
    }
    body = decoded;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

function expectCode(reply: Pick<Reply, 'status' | 'body'>, status: number, code: string, field?: string) {
  expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
  expect(typeof reply.body.error).toBe('string');
  expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status).toBe(status);
  if (field === undefined) expect(reply.body).not.toHaveProperty('field');
  else expect(reply.body.field).toBe(field);
}

describe.each(BACKENDS)('error codes on %s', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t.close();
  });

  it('tells a missing credential (401) from a scope refusal (403 scope_denied)', async () => {
    expectCode(await t.request('GET', '/v1/account/keys'), 401, 'unauthorized');
    expectCode(await t.request('GET', '/v1/account/keys', { token: `svc_sk_${'a'.repeat(43)}` }), 401, 'unauthorized');
    const readKey = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'r', scope: 'read' } })).body.key;
    expectCode(await t.request('PUT', '/v1/secrets/NAME', { token: readKey, body: { value: 'x' } }), 403, 'scope_denied');
  });

  it('answers 404 not_found for unknown resources and routes', async () => {
    expectCode(await t.request('DELETE', '/v1/account/keys/key_doesnotexist', { token: key }), 404, 'not_found');
    const route = await t.request('GET', '/v1/nope', { token: key });
    expect(route.body).toEqual({ error: 'no route for GET /v1/nope', code: 'not_found' });
  });

  it('names the field at fault in a 400 invalid_field, from the request schema and from a service', async () => {
    expectCode(await t.request('POST', '/v1/account/keys', { token: key, body: {} }), 400, 'invalid_field', 'body.name');
    expectCode(await t.request('POST', '/v1/account/keys', { token: key, body: { name: 7 } }), 400, 'invalid_field', 'body.name');
    expectCode(await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'x', admin: true } }), 400, 'invalid_field', 'body.admin');
    expectCode(await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'x', expires_at: '2001-01-01T00:00:00Z' } }), 400, 'invalid_field', 'body.expires_at');
    expectCode(await t.request('GET', '/v1/alerts?limit=abc', { token: key }), 400, 'invalid_field', 'query.limit');
    expectCode(await t.request('POST', '/v1/account/keys', { token: key, raw: '[]' }), 400, 'invalid_field', 'body');
  });

  it('answers malformed JSON with invalid_json, a wrong content-type with 415 and a big body with 413', async () => {
    expectCode(await t.request('POST', '/signup', { raw: '{"email":' }), 400, 'invalid_json');
    expectCode(await t.request('POST', '/signup', { raw: 'email=a', contentType: 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
    expectCode(await t.request('POST', '/signup', { body: { email: 'big@example.com', password: 'x'.repeat(2 * 1024 * 1024) } }), 413, 'payload_too_large');
  });

  it('answers a taken email with 409 already_exists', async () => {
    const { email } = await t.signup();
    expectCode(await t.request('POST', '/signup', { body: { email, password: 'long enough password' } }), 409, 'already_exists');
  });

  it('answers a path parameter longer than any valid value with 414 uri_too_long', async () => {
    expectCode(await t.request('DELETE', `/v1/account/keys/${'a'.repeat(500)}`, { token: key }), 414, 'uri_too_long');
  });

  it('keeps {error: {code, message, details}} on agent-delegation paths', async () => {
    const reply = await t.request('GET', '/v1/a2a/nothing-here', { token: key });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: { code: 'not_found', message: expect.any(String), details: {} } });
  });

  it('answers TRACE, PROPFIND, OPTIONS, CONNECT and unknown methods with 405 method_not_allowed and Allow', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'OPTIONS', 'PURGE', 'FOO', 'CONNECT']) {
      const target = method === 'CONNECT' ? 'example.com:443' : '/v1/account';
      const answer = parseRaw(await rawExchange(t.url, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`));
      expect({ method, status: answer.status, code: answer.body.code }).toEqual({ method, status: 405, code: 'method_not_allowed' });
      expect(answer.body.error).toContain(method);
      expect(answer.headers.allow).toMatch(/^GET, HEAD, POST, PUT, .*DELETE$/);
      expect(answer.headers['content-type']).toMatch(/application\/json/);
    }
  });

  it('answers requests Node refuses before routing with JSON and a code', async () => {
    const cases: [string, string, number, string, RegExp][] = [
      ['no Host', 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n', 400, 'malformed_request', /no Host header/],
      ['two Hosts', 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n', 400, 'malformed_request', /more than one Host header/],
      ['two Hosts on an upgrade', 'GET /healthz HTTP/1.1\r\nHost: a\r\nhost: b\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n', 400, 'malformed_request', /more than one Host header/],
      ['a bad request line', 'GET /healthz HTTP/9.9\r\nHost: a\r\n\r\n', 400, 'malformed_request', /malformed/],
      ['garbage', 'hello there\r\n\r\n', 400, 'malformed_request', /malformed/],
      ['a bad header', 'GET /healthz HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n', 400, 'malformed_request', /malformed/],
      ['a head over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large', /too large/],
    ];
    for (const [label, bytes, status, code, message] of cases) {
      const answer = parseRaw(await rawExchange(t.url, bytes));
      expect({ label, status: answer.status, code: answer.body.code }).toEqual({ label, status, code });
      expect(answer.body.error).toMatch(message);
      expect(answer.headers['content-type']).toMatch(/application\/json/);
    }
    // HTTP/1.0 needs no Host.
    expect(parseRaw(await rawExchange(t.url, 'GET /healthz HTTP/1.0\r\n\r\n')).body).toEqual({ status: 'ok' });
  });

  it('lists the catalogue in the OpenAPI document: the Error schema has every code, and every error response uses it', async () => {
    const spec = (await t.request('GET', '/openapi.json')).body;
    const schema = spec.components.schemas.Error;
    expect(schema.properties.code.enum).toEqual(ERROR_CODE_NAMES);
    expect(schema.required).toEqual(['error', 'code']);
    for (const code of ERROR_CODE_NAMES) expect(schema.description).toContain(`| \`${code}\` | ${ERROR_CODES[code].status} |`);
    const offenders: string[] = [];
    for (const [path, operations] of Object.entries<any>(spec.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
          // /readyz answers 503 with its health report, not an error body.
          if (Number(status) < 400 || path === '/readyz' || path.startsWith('/v1/a2a') || path.startsWith('/.well-known/agent')) continue;
          if (response.content?.['application/json']?.schema?.$ref !== '#/components/schemas/Error') offenders.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe.each(BACKENDS)('rate-limit code on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_RATE_LIMIT_FREE: '2' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 429 rate_limited with Retry-After', async () => {
    const { key } = await t.signup();
    await t.request('GET', '/v1/account', { token: key });
    await t.request('GET', '/v1/account', { token: key });
    const limited = await t.request('GET', '/v1/account', { token: key });
    expectCode(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe.each(BACKENDS)('draining on %s', (backend) => {
  it('answers a request that arrives while the server drains with 503 shutting_down as JSON', async () => {
    const t = await startApp(backend);
    const { port } = new URL(t.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    const ended = new Promise((resolve) => socket.on('close', resolve));
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'whatever1' });
    // The first request is under way (its body not sent yet) when the server starts to close, so its
    // connection stays open, and the second, pipelined behind it, arrives during the drain.
    socket.write(`POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const closed = t.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write(`${body}GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await ended;
    await closed;
    const second = answer.indexOf('HTTP/1.1', 1);
    expect(answer.slice(0, 12)).toBe('HTTP/1.1 401');
    expect(second, answer).toBeGreaterThan(0);
    const drained = parseRaw(answer.slice(second));
    expect({ status: drained.status, body: drained.body }).toEqual({ status: 503, body: { error: 'the server is shutting down: retry shortly', code: 'shutting_down' } });
  });
});
