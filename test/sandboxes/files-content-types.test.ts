// Writing a file takes raw bytes only: a JSON, text or form body, or none at all, answers 415 and leaves
// an existing file as it was (it used to be replaced by an empty file with a 200). runc on both
// databases: the refusal happens before the runtime is reached, so gVisor behaves the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const PRECIOUS = 'the only copy of my work\n';

describe.each(BACKENDS)('file writes on runc with %s', (backend) => {
  let t: TestApp;
  let key: string;
  let sandboxId: string;

  const put = (path: string, init: { body?: string | Uint8Array; contentType?: string }) =>
    fetch(`${t.url}/v1/sandboxes/${sandboxId}/files/content?path=${encodeURIComponent(path)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, ...(init.contentType ? { 'content-type': init.contentType } : {}) },
      body: init.body as BodyInit | undefined,
    });
  const read = async (path: string) => (await t.request('GET', `/v1/sandboxes/${sandboxId}/files/content?path=${encodeURIComponent(path)}`, { token: key })).text;

  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime: 'runc' });
    key = (await t.signupOnPlan('pro')).key;
    const created = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'minimal', cpus: 1, memory_mb: 256, disk_gb: 1, network_mode: 'none' } });
    expect(created.status, created.text).toBe(201);
    sandboxId = created.body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const refused: [label: string, init: { body?: string | Uint8Array; contentType?: string }][] = [
    ['a JSON body, as most clients send by default', { body: JSON.stringify({ content: 'new text' }), contentType: 'application/json' }],
    ['a JSON string body', { body: '"new text"', contentType: 'application/json; charset=utf-8' }],
    ['an empty body labelled JSON', { body: '', contentType: 'application/json' }],
    ['a text/plain body', { body: 'new text', contentType: 'text/plain' }],
    ['a form body', { body: 'content=new+text', contentType: 'application/x-www-form-urlencoded' }],
    ['a multipart body', { body: '--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n--b--\r\n', contentType: 'multipart/form-data; boundary=b' }],
    ['bytes without a content type', { body: new Uint8Array([110, 101, 119]) }],
    ['no body and no content type', {}],
  ];

  it.each(refused)('refuses %s with 415 naming application/octet-stream, and keeps the existing file', async (_label, init) => {
    const original = await put('notes/keep.txt', { body: PRECIOUS, contentType: 'application/octet-stream' });
    expect(original.status).toBe(200);
    const reply = await put('notes/keep.txt', init);
    expect(reply.status).toBe(415);
    const body = await reply.json();
    expect(typeof body.error).toBe('string');
    expect(body.error).toContain('application/octet-stream');
    expect(body.error).toContain('nothing was written');
    expect(await read('notes/keep.txt')).toBe(PRECIOUS);
  });

  it('does not create a file from a refused body', async () => {
    expect((await put('notes/never.txt', { body: '{"content":"x"}', contentType: 'application/json' })).status).toBe(415);
    expect((await t.request('GET', `/v1/sandboxes/${sandboxId}/files/content?path=notes/never.txt`, { token: key })).status).toBe(404);
  });

  it('writes raw bytes with a content-type parameter, and an empty file only when asked with that type', async () => {
    const withCharset = await put('notes/param.txt', { body: 'bytes', contentType: 'application/octet-stream; charset=binary' });
    expect(withCharset.status).toBe(200);
    expect(await read('notes/param.txt')).toBe('bytes');
    const empty = await put('notes/param.txt', { body: '', contentType: 'application/octet-stream' });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({ path: '/workspace/notes/param.txt', size: 0 });
    expect(await read('notes/param.txt')).toBe('');
  });
});
