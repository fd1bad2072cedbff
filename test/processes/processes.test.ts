// Background processes on real sandboxes (runc and gVisor): start at once, list and get, output by
// offset and followed (NDJSON, SSE, two followers, after the exit), stdin, signals, the 1 MiB ring,
// pause/resume, and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait-for.js';
import { follow, textOf } from './follow.js';

const RUNTIMES = ['runc', 'gvisor'] as const;

describe.each(RUNTIMES)('background processes on %s', (runtime) => {
  let t: TestApp;
  let key: string;
  let sandbox: string;

  const processes = () => `/v1/sandboxes/${sandbox}/processes`;
  const start = async (command: string, extra: object = {}) => {
    const reply = await t.request('POST', processes(), { token: key, body: { command, ...extra } });
    expect(reply.status, reply.text).toBe(201);
    return reply.body;
  };
  const get = async (pid: string) => (await t.request('GET', `${processes()}/${pid}`, { token: key })).body;
  const output = async (pid: string, offset = 0, extra = '') => {
    const reply = await t.request('GET', `${processes()}/${pid}/output?offset=${offset}${extra}`, { token: key });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const exited = (pid: string) => waitFor(`process ${pid} to exit`, async () => ((await get(pid)).status === 'exited' ? get(pid) : null), 20_000);
  const signal = (pid: string, name: string) => t.request('POST', `${processes()}/${pid}/signal`, { token: key, body: { signal: name } });
  const stdin = (pid: string, body: object) => t.request('POST', `${processes()}/${pid}/stdin`, { token: key, body });

  beforeAll(async () => {
    t = await startApp('sqlite', {}, { runtime, networkProfile: 3 });
    key = (await t.signupOnPlan('team')).key;
    const created = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(created.status, created.text).toBe(201);
    sandbox = created.body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('starts at once, lists and gets it, and ends it with SIGTERM and SIGKILL', async () => {
    const began = performance.now();
    const sleeper = await start('sleep 30', { tag: 'sleepers', cwd: '/tmp', env: { GREETING: 'hi' } });
    expect(performance.now() - began).toBeLessThan(3000);
    expect(sleeper).toMatchObject({
      id: expect.stringMatching(/^proc_/),
      sandbox_id: sandbox,
      command: 'sleep 30',
      tag: 'sleepers',
      cwd: '/tmp',
      status: 'running',
      exit_code: null,
      signal: null,
      ended_at: null,
    });
    expect(sleeper.os_pid).toBeGreaterThan(1);
    expect(Date.parse(sleeper.started_at)).not.toBeNaN();
    expect(await get(sleeper.id)).toMatchObject({ ...sleeper, output_bytes: 0 });
    const other = await start('sleep 30');

    const running = (await t.request('GET', `${processes()}?status=running`, { token: key })).body.items.map((item: any) => item.id);
    expect(running.slice(0, 2)).toEqual([other.id, sleeper.id]);
    expect((await t.request('GET', `${processes()}?tag=sleepers`, { token: key })).body.items.map((item: any) => item.id)).toEqual([sleeper.id]);

    expect((await signal(sleeper.id, 'SIGTERM')).status).toBe(202);
    expect((await signal(other.id, 'SIGKILL')).body).toMatchObject({ id: other.id });
    expect(await exited(sleeper.id)).toMatchObject({ status: 'exited', exit_code: 143, signal: 'SIGTERM', ended_at: expect.any(String) });
    expect(await exited(other.id)).toMatchObject({ exit_code: 137, signal: 'SIGKILL' });
    const done = (await t.request('GET', `${processes()}?status=exited&tag=sleepers`, { token: key })).body.items;
    expect(done.map((item: any) => item.id)).toEqual([sleeper.id]);
    expect(Date.parse(done[0].ended_at)).toBeGreaterThanOrEqual(Date.parse(done[0].started_at));
  });

  it('streams output live to two followers (NDJSON and SSE), by offset, and to a follower after the exit', async () => {
    const script = 'for i in 1 2 3 4 5; do echo "out $i"; echo "err $i" >&2; sleep 0.3; done; echo "$GREETING"; exit 3';
    const proc = await start(script, { env: { GREETING: 'bye' } });
    const path = `${processes()}/${proc.id}`;
    const [ndjson, sse] = await Promise.all([follow(t.url, key, path), follow(t.url, key, path, { sse: true })]);
    expect(ndjson.contentType).toContain('application/x-ndjson');
    expect(sse.contentType).toContain('text/event-stream');
    for (const followed of [ndjson, sse]) {
      expect(textOf(followed.events)).toBe('out 1\nout 2\nout 3\nout 4\nout 5\nbye\n');
      expect(textOf(followed.events, 'stderr')).toBe('err 1\nerr 2\nerr 3\nerr 4\nerr 5\n');
      const exit = followed.events.at(-1)!;
      expect(exit).toMatchObject({ type: 'exit', exit_code: 3, signal: null });
      // Live: the first line arrived well before the exit (the script takes 1.5 s).
      expect(exit.at - followed.events[0].at).toBeGreaterThan(800);
    }
    const lastData = sse.events.at(-2)!;
    expect(Number(sse.events.at(-1)!.id)).toBe(lastData.offset! + Buffer.byteLength(lastData.data!));

    const page = await output(proc.id);
    expect(page).toMatchObject({ truncated: false, status: 'exited', exit_code: 3 });
    expect(
      page.chunks
        .filter((chunk: any) => chunk.stream === 'stdout')
        .map((chunk: any) => chunk.data)
        .join(''),
    ).toBe('out 1\nout 2\nout 3\nout 4\nout 5\nbye\n');
    expect(page.next_offset).toBe((await get(proc.id)).output_bytes);
    const tail = await output(proc.id, page.next_offset - 4);
    expect(tail.chunks).toEqual([{ stream: 'stdout', offset: page.next_offset - 4, data: 'bye\n' }]);
    expect((await output(proc.id, page.next_offset)).chunks).toEqual([]);

    const late = await follow(t.url, key, path, { offset: page.next_offset - 4 });
    expect(late.events.map((event) => event.type)).toEqual(['stdout', 'exit']);
    expect(late.events[0].data).toBe('bye\n');
  });

  it('relays stdin until eof, then refuses more', async () => {
    const reader = await start('while read line; do echo "got $line"; done; echo closed');
    expect((await stdin(reader.id, { data: 'one\ntwo\n' })).status).toBe(204);
    await waitFor('both lines echoed', async () => (await output(reader.id)).chunks.map((chunk: any) => chunk.data).join('') === 'got one\ngot two\n');
    expect((await stdin(reader.id, { data: 'three\n', eof: true })).status).toBe(204);
    expect(await exited(reader.id)).toMatchObject({ exit_code: 0 });
    expect((await output(reader.id)).chunks.map((chunk: any) => chunk.data).join('')).toBe('got one\ngot two\ngot three\nclosed\n');
    const afterExit = await stdin(reader.id, { data: 'x' });
    expect(afterExit.status).toBe(409);
    expect(afterExit.body.code).toBe('process_not_running');

    const sleeper = await start('sleep 30');
    expect((await stdin(sleeper.id, { data: '', eof: true })).status).toBe(204);
    const closed = await stdin(sleeper.id, { data: 'more' });
    expect(closed.status).toBe(409);
    expect(closed.body.code).toBe('process_stdin_closed');
    await signal(sleeper.id, 'SIGKILL');
    await exited(sleeper.id);
    const signalAfterExit = await signal(sleeper.id, 'SIGTERM');
    expect(signalAfterExit.status).toBe(409);
    expect(signalAfterExit.body.code).toBe('process_not_running');
  });

  it('reads a character cut between two writes whole', async () => {
    const writer = await start("printf 'caf\\303'; sleep 0.3; printf '\\251\\n'");
    await exited(writer.id);
    const page = await output(writer.id);
    expect(page.chunks).toEqual([{ stream: 'stdout', offset: 0, data: 'café\n' }]);
    expect(page.next_offset).toBe(6);
    const followed = await follow(t.url, key, `${processes()}/${writer.id}`);
    expect(followed.events.filter((event: any) => event.type === 'stdout').map((event: any) => event.data)).toEqual(['caf', 'é\n']);
  });

  it('ends a running process page before a character it has not finished writing', async () => {
    const writer = await start("printf 'caf\\303'; read line; printf '\\251\\n'");
    await waitFor('the first four bytes', async () => (await get(writer.id)).output_bytes === 4);
    const cut = await output(writer.id);
    expect(cut).toMatchObject({ chunks: [{ stream: 'stdout', offset: 0, data: 'caf' }], next_offset: 3, status: 'running' });
    expect(await output(writer.id, 3)).toMatchObject({ chunks: [], next_offset: 3, status: 'running' });
    expect((await stdin(writer.id, { data: 'go\n' })).status).toBe(204);
    await exited(writer.id);
    expect(await output(writer.id, cut.next_offset)).toMatchObject({ chunks: [{ stream: 'stdout', offset: 3, data: 'é\n' }], next_offset: 6, status: 'exited' });
  });

  it('keeps the newest output of the 1 MiB ring and says when an offset left it', async () => {
    const big = await start("head -c 3000000 /dev/zero | tr '\\0' a; echo END");
    expect(await exited(big.id)).toMatchObject({ exit_code: 0, output_bytes: 3_000_004 });
    const page = await output(big.id);
    expect(page.truncated).toBe(true);
    expect(page.next_offset).toBe(3_000_004);
    const kept = page.chunks.map((chunk: any) => chunk.data).join('');
    expect(page.chunks[0].offset).toBe(3_000_004 - kept.length);
    expect(kept.length).toBeGreaterThan(900_000);
    expect(kept.length).toBeLessThanOrEqual(1024 * 1024);
    expect(kept.endsWith('aaaEND\n')).toBe(true);
    const followed = await follow(t.url, key, `${processes()}/${big.id}`);
    expect(followed.events[0]).toEqual({ type: 'truncated', offset: page.chunks[0].offset, at: expect.any(Number) });
    expect(textOf(followed.events)).toBe(kept);
  });

  it('keeps a running process through pause and resume, its output continuing', async () => {
    const ticker = await start('i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 0.1; done');
    await waitFor('a few ticks', async () => (await get(ticker.id)).output_bytes > 30);
    expect((await t.request('POST', `/v1/sandboxes/${sandbox}/pause`, { token: key })).status).toBe(200);
    const whilePaused = await t.request('GET', `${processes()}/${ticker.id}`, { token: key });
    expect(whilePaused.status).toBe(409);
    expect(whilePaused.body.code).toBe('sandbox_not_running');
    expect((await t.request('POST', `/v1/sandboxes/${sandbox}/resume`, { token: key })).status).toBe(200);
    const resumed = await get(ticker.id);
    expect(resumed).toMatchObject({ status: 'running', os_pid: ticker.os_pid });
    const waited = await output(ticker.id, resumed.output_bytes + 100, '&wait_ms=10000');
    expect(waited.chunks[0]).toMatchObject({ stream: 'stdout', offset: resumed.output_bytes + 100 });
    const text = (await output(ticker.id)).chunks.map((chunk: any) => chunk.data).join('');
    expect(text.startsWith('tick 0\ntick 1\n')).toBe(true);
    await signal(ticker.id, 'SIGKILL');
    await exited(ticker.id);
  });

  it('answers bad input with a 4xx naming it', async () => {
    const unknown = await t.request('GET', `${processes()}/proc_00000000000000000000000000`, { token: key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('process_not_found');
    expect((await t.request('GET', `${processes()}/nonsense/output`, { token: key })).body.code).toBe('process_not_found');
    expect((await t.request('POST', `${processes()}/proc_00000000000000000000000000/stdin`, { token: key, body: { data: 'x' } })).status).toBe(404);
    const proc = await start('sleep 30');
    const badSignal = await signal(proc.id, 'SIGSTOP');
    expect(badSignal.status).toBe(400);
    expect(badSignal.body.field).toBe('body.signal');
    const badCwd = await t.request('POST', processes(), { token: key, body: { command: 'true', cwd: '/no/such/dir' } });
    expect(badCwd.status).toBe(400);
    expect(badCwd.body.field).toBe('body.cwd');
    const badTag = await t.request('POST', processes(), { token: key, body: { command: 'true', tag: 'has space' } });
    expect(badTag.status).toBe(400);
    expect(badTag.body.field).toBe('body.tag');
    const emptyCommand = await t.request('POST', processes(), { token: key, body: { command: '' } });
    expect(emptyCommand.body.field).toBe('body.command');
    const badOffset = await t.request('GET', `${processes()}/${proc.id}/output?offset=-1`, { token: key });
    expect(badOffset.status).toBe(400);
    expect(badOffset.body.field).toBe('query.offset');

    const stranger = (await t.signupOnPlan('team')).key;
    for (const [method, path, body] of [
      ['GET', processes()],
      ['POST', processes(), { command: 'true' }],
      ['GET', `${processes()}/${proc.id}/output?follow=true`],
      ['POST', `${processes()}/${proc.id}/signal`, { signal: 'SIGKILL' }],
    ] as const) {
      const reply = await t.request(method, path, { token: stranger, body });
      expect(reply.status, path).toBe(404);
      expect(reply.body.code).toBe('not_found');
    }
    expect((await get(proc.id)).status).toBe('running');
    await signal(proc.id, 'SIGKILL');
  });
});
