// Background processes live in the sandbox, not in the server: a follower that drops re-attaches from its
// offset, and a `kill -9` of a real `paddock serve` leaves the process running, its output readable and
// followable after the server starts again on the same data directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_TEMPLATES_DIR } from '../helpers/app.js';
import { startServe, type Served } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { follow, textOf } from './follow.js';

describe.each(['runc', 'gvisor'] as const)('background processes across a server kill -9 with %s', (runtime) => {
  let served: Served | null = null;
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
  });

  it('keeps running, readable and followable', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-processes-'));
    fs.symlinkSync(TEST_TEMPLATES_DIR, path.join(data, 'templates'));
    const env = { PADDOCK_RUNTIME: runtime, PADDOCK_LOG_LEVEL: 'warn' };
    served = await startServe(['--port', '0', '--data', data], env);
    const key = /^API key: (\S+)$/m.exec(served.stdout())![1];
    const api = async (method: string, route: string, body?: object) => {
      const response = await fetch(served!.url + route, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: response.status === 204 ? null : await response.json() };
    };
    const sandbox = (await api('POST', '/v1/sandboxes', { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 })).body.id as string;
    const started = await api('POST', `/v1/sandboxes/${sandbox}/processes`, { command: 'i=0; while [ ! -e /tmp/stop ]; do i=$((i+1)); echo "tick $i"; sleep 0.1; done; echo stopped' });
    expect(started.status).toBe(201);
    const route = `/v1/sandboxes/${sandbox}/processes/${started.body.id}`;

    // One client follows, then drops its request; another re-attaches from the offset it had reached.
    const dropped = new AbortController();
    let reached = 0;
    const first = await follow(served.url, key, route, {
      signal: dropped.signal,
      onEvent: (event) => {
        reached = event.offset! + Buffer.byteLength(event.data ?? '');
        if (event.data?.includes('tick 5\n')) dropped.abort();
      },
    });
    expect(textOf(first.events)).toMatch(/^tick 1\n(.|\n)*tick 5\n/);
    const resumed = new AbortController();
    const second = follow(served.url, key, route, { offset: reached, signal: resumed.signal });
    await waitFor('the second follower to get output', async () => (await api('GET', route)).body.output_bytes > reached + 20);

    resumed.abort();
    expect(textOf((await second).events)).toMatch(/^tick \d+\n/);
    // A dropped follower's tail ends inside the sandbox too.
    const tails = `for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f 2>/dev/null; echo; done | grep -c '^/.paddock/agent process-tail'`;
    await waitFor('the dropped followers to end', async () => (await api('POST', `/v1/sandboxes/${sandbox}/exec`, { command: tails })).body.stdout === '0\n');
    served.child.kill('SIGKILL');
    await served.exited;

    served = await startServe(['--port', '0', '--data', data], env);
    const afterRestart = await api('GET', route);
    expect(afterRestart.body).toMatchObject({ status: 'running', exit_code: null });
    const stop = setTimeout(() => void api('POST', `/v1/sandboxes/${sandbox}/exec`, { command: 'touch /tmp/stop' }), 1000);
    const rest = await follow(served.url, key, route, { offset: reached });
    clearTimeout(stop);
    expect(rest.events.at(-1)).toMatchObject({ type: 'exit', exit_code: 0 });
    // Every tick from before the kill, during the restart and after it, exactly once and in order.
    const lines = (textOf(first.events) + textOf(rest.events)).split('\n');
    expect(lines.slice(-2)).toEqual(['stopped', '']);
    const ticks = lines.slice(0, -2);
    expect(ticks.length).toBeGreaterThan(30);
    expect(ticks).toEqual(ticks.map((_, i) => `tick ${i + 1}`));

    expect((await api('DELETE', `/v1/sandboxes/${sandbox}`)).status).toBe(204);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    fs.rmSync(data, { recursive: true, force: true });
  });
});
