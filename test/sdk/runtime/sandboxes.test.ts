// The SDK's sandbox area end to end: `new Paddock(...)` against the real app with real sandboxes on runc
// and gVisor (SQLite), one sandbox per runtime reused across the tests.
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BadRequestError, NotFoundError, Paddock, Sandbox, type Terminal } from '../../../sdk/src/index.js';
import { startApp, type TestApp } from '../../helpers/app.js';
import { askUntil, waitFor } from '../../helpers/wait-for.js';

const RUNTIMES = ['runc', 'gvisor'] as const;
const SMALL = { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1 } as const;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** GET through the preview proxy: `*.localhost` does not resolve here, so the Host header names the preview. */
function fetchPreview(previewUrl: string, appUrl: string): Promise<{ status: number; body: string }> {
  const preview = new URL(previewUrl);
  const app = new URL(appUrl);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: app.hostname, port: app.port, path: '/', headers: { host: preview.host } }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

async function* chunksOf(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe.each(RUNTIMES)('the SDK with sandboxes on %s', (runtime) => {
  let t: TestApp;
  let apiKey: string;
  let paddock: Paddock;
  let sandbox: Sandbox;

  beforeAll(async () => {
    t = await startApp('sqlite', {}, { runtime });
    apiKey = (await t.signupOnPlan('team')).key;
    paddock = new Paddock({ url: t.url, apiKey });
    sandbox = await paddock.sandboxes.create(SMALL);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates, connects to and lists sandboxes', async () => {
    expect(sandbox.id).toMatch(/^sbx_/);
    expect(sandbox.status).toBe('running');
    const connected = await paddock.sandboxes.connect(sandbox.id);
    expect(connected.info).toMatchObject({ id: sandbox.id, status: 'running', runtime, template: 'python-311' });
    expect((await paddock.sandboxes.list()).map((item) => item.id)).toContain(sandbox.id);
    expect(await paddock.sandboxes.list({ status: 'paused' })).toEqual([]);
    const viaStatic = await Sandbox.connect(sandbox.id, { url: t.url, apiKey });
    expect((await viaStatic.refresh()).cpus).toBe(1);
    expect((await paddock.sandboxes.templates()).find((template) => template.name === 'python-311')?.ready).toBe(true);
  });

  it('throws typed errors: NotFoundError for an unknown sandbox, BadRequestError naming the field', async () => {
    const missing = await paddock.sandboxes.connect('sbx_00000000000000000000000000').catch((error) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    // The server's code for a sandbox that is not in the account is `not_found` (src/sandboxes/context.ts).
    expect(missing).toMatchObject({ status: 404, code: 'not_found', message: 'sandbox not found', method: 'GET' });
    const bad = await paddock.sandboxes.create({ ...SMALL, cpus: 99 }).catch((error) => error);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toMatchObject({ status: 400, field: 'body.cpus' });
    expect(bad.message).toContain('cpus');
  });

  it('runs a command buffered, with its exit code, stdout and stderr', async () => {
    const ok = await sandbox.commands.run('echo out; echo err >&2');
    expect(ok).toMatchObject({ exitCode: 0, stdout: 'out\n', stderr: 'err\n', truncated: false, timedOut: false });
    expect(ok.durationMs).toBeGreaterThanOrEqual(0);
    const failed = await sandbox.commands.run('echo "$GREETING from $(pwd)"; exit 3', { env: { GREETING: 'hi' }, cwd: '/tmp' });
    expect(failed).toMatchObject({ exitCode: 3, stdout: 'hi from /tmp\n' });
  });

  it('streams stdout and stderr in the order they are written', async () => {
    const seen: string[] = [];
    const result = await sandbox.commands.run('for i in 1 2 3; do echo out$i; sleep 0.2; echo err$i >&2; sleep 0.2; done; exit 7', {
      onStdout: (data) => seen.push(`stdout:${data.trim()}`),
      onStderr: (data) => seen.push(`stderr:${data.trim()}`),
    });
    expect(seen).toEqual(['stdout:out1', 'stderr:err1', 'stdout:out2', 'stderr:err2', 'stdout:out3', 'stderr:err3']);
    expect(result).toMatchObject({ exitCode: 7, stdout: 'out1\nout2\nout3\n', stderr: 'err1\nerr2\nerr3\n', timedOut: false });
  });

  it('kills a command past timeoutMs and says it timed out', async () => {
    const started = Date.now();
    const result = await sandbox.commands.run('sleep 30', { timeoutMs: 1000 });
    expect(result).toMatchObject({ exitCode: 124, timedOut: true });
    expect(Date.now() - started).toBeLessThan(10_000);
    const streamed = await sandbox.commands.run('echo before; sleep 30', { timeoutMs: 1000, onStdout: () => undefined });
    expect(streamed).toMatchObject({ exitCode: 124, timedOut: true, stdout: 'before\n' });
  });

  it('writes, reads, lists and removes files', async () => {
    await sandbox.files.write('notes/hello.txt', 'héllo\n');
    expect(await sandbox.files.read('/workspace/notes/hello.txt')).toBe('héllo\n');
    const binary = new Uint8Array([0, 255, 1, 254, 10]);
    await sandbox.files.write('/tmp/binary.bin', binary);
    expect(await sandbox.files.readBytes('/tmp/binary.bin')).toEqual(binary);
    const entries = await sandbox.files.list('notes');
    expect(entries).toEqual([expect.objectContaining({ name: 'hello.txt', type: 'file', size: 7 })]);
    await sandbox.files.remove('notes');
    await expect(sandbox.files.list('notes')).rejects.toBeInstanceOf(NotFoundError);
    await sandbox.files.remove('notes'); // nothing there: no error
  });

  it('uploads and downloads a few MB as streams, byte for byte', async () => {
    const bytes = randomBytes(3 * 1024 * 1024);
    await sandbox.files.upload('/tmp/big.bin', chunksOf(bytes, 64 * 1024));
    expect((await sandbox.commands.run('sha256sum /tmp/big.bin')).stdout.split(' ')[0]).toBe(sha256(bytes));
    const stream = await sandbox.files.download('/tmp/big.bin');
    const parts: Uint8Array[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts.length).toBeGreaterThan(1);
    expect(sha256(Buffer.concat(parts))).toBe(sha256(bytes));

    const fromWebStream = new Blob([bytes]).stream();
    await sandbox.files.upload('/tmp/big2.bin', fromWebStream);
    expect(sha256(await sandbox.files.readBytes('/tmp/big2.bin'))).toBe(sha256(bytes));
  });

  it('opens a terminal, types into it, reads the answer and resizes it', async () => {
    let output = '';
    const terminal: Terminal = await sandbox.terminal.open({ cols: 100, rows: 30, onData: (data) => (output += data) });
    expect(terminal.sessionId).toMatch(/^term_/);
    await waitFor('the prompt', () => /[#$] $/.test(output));
    terminal.write('echo hi-$((20+1))\n');
    await waitFor('the echo', () => output.includes('hi-21'), 15_000, 25);
    terminal.resize(120, 40);
    // The server applies a resize a moment after its message (docs/decisions.md): ask until the new size shows.
    await askUntil(
      'the new size',
      () => terminal.write('stty size\n'),
      () => output.includes('40 120'),
    );
    terminal.write('exit 5\n');
    expect(await terminal.exited).toEqual({ code: 5, closeCode: 1000 });
  });

  it('opens a terminal with a WebSocket constructor passed in (the ws package, as on Node 20)', async () => {
    let output = '';
    const terminal = await sandbox.terminal.open({ WebSocket: WebSocket as never, onData: (data) => (output += data) });
    terminal.write('echo via-ws-$((1+1))\n');
    await waitFor('the echo', () => output.includes('via-ws-2'), 15_000, 25);
    terminal.close();
    expect((await terminal.exited).code).toBeNull();
  });

  it('finds the preview URL of a server started in the sandbox and fetches it', async () => {
    await sandbox.commands.run('mkdir -p /tmp/site && echo "served by $(hostname)" > /tmp/site/index.html && (cd /tmp/site && nohup python3 -m http.server 8000 >/dev/null 2>&1 &)');
    const url = await sandbox.ports.previewUrl(8000);
    expect(url).toContain(`${sandbox.id}-8000.`);
    expect((await sandbox.ports.list()).find((port) => port.port === 8000)).toMatchObject({ protocol: 'http', protected: false });
    expect(await fetchPreview(url, t.url)).toEqual({ status: 200, body: `served by ${sandbox.id}\n` });
    expect(await sandbox.ports.protect(8000, 'preview password')).toMatchObject({ port: 8000, protected: true });
    expect((await fetchPreview(url, t.url)).status).toBe(401);
    expect(await sandbox.ports.unprotect(8000)).toMatchObject({ protected: false });
  });

  it('starts a background process, finds it by tag from another client, attaches to its output and gets its exit', async () => {
    const started = Date.now();
    const job = await sandbox.processes.start('for i in 1 2 3; do echo line$i; sleep 0.3; done; echo oops >&2; exit 4', { tag: 'sdk-job' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(job.info).toMatchObject({ id: expect.stringMatching(/^proc_/), status: 'running', tag: 'sdk-job' });
    const elsewhere = await Sandbox.connect(sandbox.id, { url: t.url, apiKey });
    const [found] = await elsewhere.processes.list({ tag: 'sdk-job' });
    expect(found.id).toBe(job.id);
    let stdout = '';
    let stderr = '';
    const ended = await found.attach({ onStdout: (data) => (stdout += data), onStderr: (data) => (stderr += data) });
    expect(ended).toEqual({ exitCode: 4, signal: null });
    expect(stdout).toBe('line1\nline2\nline3\n');
    expect(stderr).toBe('oops\n');
    const page = await job.output({ offset: 6 });
    expect(page).toMatchObject({ nextOffset: 23, truncated: false, status: 'exited', exitCode: 4 });
    expect(page.chunks.map((chunk) => chunk.data).join('')).toBe('line2\nline3\noops\n');
    expect(await job.wait()).toEqual({ exitCode: 4, signal: null });
    expect((await sandbox.processes.list({ status: 'exited' })).map((process) => process.id)).toContain(job.id);
  });

  it('writes to a process stdin, kills one, and starts one through commands.run({background})', async () => {
    const reader = await sandbox.processes.start('tr a-z A-Z');
    await reader.sendStdin('hello ');
    await reader.sendStdin('stdin\n', { eof: true });
    expect(await reader.wait()).toEqual({ exitCode: 0, signal: null });
    expect((await reader.output()).chunks.map((chunk) => chunk.data).join('')).toBe('HELLO STDIN\n');
    const sleeper = await sandbox.commands.run('sleep 60', { background: true, tag: 'sleeper' });
    expect(sleeper.info.command).toBe('sleep 60');
    await sleeper.kill();
    expect(await sleeper.wait()).toEqual({ exitCode: 137, signal: 'SIGKILL' });
    await expect(sleeper.sendStdin('late')).rejects.toMatchObject({ status: 409, code: 'process_not_running' });
    await expect(sandbox.processes.get('proc_missing')).rejects.toMatchObject({ status: 404, code: 'process_not_found' });
  });

  it('resumes following from the last chunk when the output stream drops', async () => {
    let follows = 0;
    // The first follow's body breaks after its first line, as a dropped connection would.
    const dropping: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).includes('follow=true') || ++follows > 1) return response;
      const reader = response.body!.getReader();
      const first = await reader.read();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(first.value!);
          controller.error(new TypeError('terminated', { cause: { code: 'ECONNRESET' } }));
          void reader.cancel();
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const flaky = new Paddock({ url: t.url, apiKey, fetch: dropping });
    const job = await (await flaky.sandboxes.connect(sandbox.id)).processes.start('for i in 1 2 3 4; do echo part$i; sleep 0.2; done');
    let stdout = '';
    expect(await job.attach({ onStdout: (data) => (stdout += data) })).toEqual({ exitCode: 0, signal: null });
    expect(follows).toBe(2);
    expect(stdout).toBe('part1\npart2\npart3\npart4\n');
  });

  it('pauses and resumes the sandbox', async () => {
    const paused = await sandbox.pause();
    expect(paused.status).toBe('paused');
    expect(sandbox.status).toBe('paused');
    expect((await paddock.sandboxes.list({ status: 'paused' })).map((item) => item.id)).toEqual([sandbox.id]);
    await expect(sandbox.commands.run('true')).rejects.toMatchObject({ code: 'sandbox_not_running' });
    expect((await sandbox.resume()).status).toBe('running');
    expect((await sandbox.commands.run('echo back')).stdout).toBe('back\n');
  });

  it('snapshots the filesystem, lists, restores and deletes the snapshot', async () => {
    await sandbox.files.write('state.txt', 'before');
    const snapshot = await sandbox.snapshots.create('sdk snapshot');
    expect(snapshot).toMatchObject({ sandbox_id: sandbox.id, name: 'sdk snapshot', status: 'completed', kind: 'manual' });
    expect((await sandbox.snapshots.list()).map((item) => item.id)).toContain(snapshot.id);
    await sandbox.files.write('state.txt', 'after');
    const restored = await sandbox.snapshots.restore(snapshot.id);
    expect(restored).toMatchObject({ snapshot_id: snapshot.id, sandbox_id: sandbox.id, status: 'running' });
    expect(await sandbox.files.read('state.txt')).toBe('before');
    await sandbox.snapshots.delete(snapshot.id);
    expect((await sandbox.snapshots.list()).map((item) => item.id)).not.toContain(snapshot.id);
    await expect(sandbox.snapshots.get(snapshot.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('destroys a sandbox when an `await using` block ends, and on destroy()', async () => {
    let id = '';
    {
      await using scoped = await Sandbox.create({ ...SMALL, url: t.url, apiKey });
      id = scoped.id;
      expect((await scoped.commands.run('echo scoped')).stdout).toBe('scoped\n');
    }
    expect((await paddock.sandboxes.connect(id)).status).toBe('destroyed');
    await sandbox.destroy();
    expect(sandbox.status).toBe('destroyed');
    expect((await sandbox.refresh()).status).toBe('destroyed');
    await sandbox.destroy(); // idempotent
  });
});
