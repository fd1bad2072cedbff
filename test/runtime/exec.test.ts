// Conformance: running commands in a sandbox, for every driver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxNotRunning } from '../../src/runtime/errors.js';
import type { RuntimeName, SandboxRuntime } from '../../src/runtime/runtime.js';
import { shell, testRuntime, testSpec } from '../helpers/runtime-environment.js';
import { askUntil, waitFor } from '../helpers/wait-for.js';
import { ensureTestTemplate } from '../helpers/test-template.js';

describe.each(['runc', 'gvisor'] as RuntimeName[])('%s: exec', (driver) => {
  let runtime: SandboxRuntime;
  const spec = testSpec({ env: { GREETING: 'hello world', QUOTED: `it's "quoted"` } });

  beforeAll(async () => {
    await ensureTestTemplate();
    runtime = testRuntime(driver);
    await runtime.init();
    await runtime.create(spec);
  });

  afterAll(async () => {
    await runtime?.destroy(spec.id);
  });

  it('returns the output of a command', async () => {
    const result = await shell(runtime, spec.id, 'echo out; echo more');
    expect(result).toMatchObject({ out: 'out\nmore\n', err: '', code: 0, timedOut: false });
  });

  it('applies the sandbox env, hostname = id and cwd /workspace to every process', async () => {
    const result = await shell(runtime, spec.id, 'echo "$GREETING|$QUOTED"; hostname; cat /etc/hostname; pwd');
    expect(result.out).toBe(`hello world|it's "quoted"\n${spec.id}\n${spec.id}\n/workspace\n`);
    const nested = await shell(runtime, spec.id, 'sh -c \'echo "$GREETING"\'');
    expect(nested.out).toBe('hello world\n');
  });

  it('lets a request override env and cwd', async () => {
    const result = await runtime.exec(spec.id, {
      command: 'echo "$GREETING"; pwd',
      env: { GREETING: 'override' },
      cwd: '/tmp',
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(result.stdout.toString()).toBe('override\n/tmp\n');
  });

  it('runs an argument array without a shell', async () => {
    const result = await runtime.exec(spec.id, {
      command: '',
      argv: ['printf', '%s|', 'two words', '$HOME', '; echo injected'],
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(result.stdout.toString()).toBe('two words|$HOME|; echo injected|');
  });

  it('reports exit codes and stderr', async () => {
    expect((await shell(runtime, spec.id, 'exit 3')).code).toBe(3);
    const failed = await shell(runtime, spec.id, 'echo oops >&2; ls /nonexistent');
    expect(failed.code).toBe(2);
    expect(failed.err).toContain('oops');
    expect(failed.err).toContain('No such file');
    expect((await shell(runtime, spec.id, 'no-such-command')).code).toBe(127);
  });

  it('kills a command that runs past its timeout, children included', async () => {
    const started = Date.now();
    const result = await shell(runtime, spec.id, 'sleep 41 & sleep 42; echo never', 1000);
    expect(result.timedOut).toBe(true);
    expect(result.code).toBe(124);
    expect(result.out).not.toContain('never');
    expect(Date.now() - started).toBeLessThan(8000);
    const left = await shell(runtime, spec.id, 'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " " | grep -c "sleep 4[12]" || true');
    expect(left.out.trim()).toBe('0');
  });

  it('caps output and marks truncation', async () => {
    const result = await runtime.exec(spec.id, { command: 'head -c 300000 /dev/zero; head -c 10 /dev/zero >&2', timeoutMs: 10_000, maxOutputBytes: 1000 });
    expect(result.stdout.length).toBe(1000);
    expect(result.stderr.length).toBe(10);
    expect(result.truncated).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  it('passes stdin to the command', async () => {
    const result = await runtime.exec(spec.id, { command: 'tr a-z A-Z', stdin: Buffer.from('hello stdin'), timeoutMs: 10_000, maxOutputBytes: 1000 });
    expect(result.stdout.toString()).toBe('HELLO STDIN');
  });

  it('streams output while the command runs', async () => {
    const chunks: { text: string; at: number }[] = [];
    const result = await runtime.exec(spec.id, {
      command: 'echo first; sleep 1; echo second >&2; sleep 0.3; echo third',
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
      onStdout: (chunk) => chunks.push({ text: `out:${chunk}`, at: Date.now() }),
      onStderr: (chunk) => chunks.push({ text: `err:${chunk}`, at: Date.now() }),
    });
    const finishedAt = Date.now();
    expect(chunks.map((chunk) => chunk.text).join('')).toBe('out:first\nerr:second\nout:third\n');
    expect(finishedAt - chunks[0].at).toBeGreaterThan(700);
    expect(result.exitCode).toBe(0);
  });

  it('opens a PTY that echoes and runs commands', async () => {
    const pty = await runtime.openPty(spec.id, { cols: 80, rows: 24 });
    let screen = '';
    pty.onData((data) => {
      screen += data.toString();
    });
    const exited = new Promise<number>((resolve) => pty.onExit(resolve));
    pty.write('test -t 0 && test -t 1 && echo TTY-YES; stty size; echo $((6*7))done\r');
    await waitFor('42done on the terminal', () => screen.includes('42done'), 10_000);
    expect(screen).toContain('TTY-YES');
    expect(screen).toContain('24 80');
    expect(screen).toContain('echo $((6*7))done');
    pty.write(Buffer.from('echo "caf\u00e9 \u2713"\r'));
    await waitFor('the echoed UTF-8 line', () => screen.includes('caf\u00e9 \u2713\r\n'), 10_000);
    pty.resize(100, 30);
    // The runtime applies a resize from SIGWINCH a moment later, so a command typed at once may see the old size.
    await askUntil(
      'the resized terminal size',
      () => pty.write('stty size\r'),
      () => screen.includes('30 100'),
      10_000,
    );
    pty.write('exit\r');
    expect(await exited).toBe(0);
  });

  it('refuses exec while paused and works again after resume', async () => {
    await shell(runtime, spec.id, 'rm -f /tmp/ticks; (while :; do echo x >> /tmp/ticks; sleep 0.1; done) >/dev/null 2>&1 &');
    await runtime.pause(spec.id);
    try {
      await expect(shell(runtime, spec.id, 'echo hi')).rejects.toBeInstanceOf(SandboxNotRunning);
    } finally {
      await runtime.resume(spec.id);
    }
    const ticks = await shell(runtime, spec.id, 'wc -l < /tmp/ticks');
    expect(Number(ticks.out.trim())).toBeGreaterThan(0);
    expect((await shell(runtime, spec.id, 'echo back')).out).toBe('back\n');
  });

  it('pausing freezes the processes inside', async () => {
    await runtime.pause(spec.id);
    const before = (await runtime.usage(spec.id)).cpuSeconds;
    await new Promise((resolve) => setTimeout(resolve, 600));
    const after = (await runtime.usage(spec.id)).cpuSeconds;
    await runtime.resume(spec.id);
    expect(after - before).toBeLessThan(0.05);
  });

  it('detects listening ports', async () => {
    await shell(runtime, spec.id, 'python3 -m http.server 8123 --bind 0.0.0.0 >/dev/null 2>&1 &');
    await shell(runtime, spec.id, 'python3 -c "import socket,time,os\nif os.fork()==0:\n  s=socket.socket(socket.AF_INET6)\n  s.bind((\'::\',9456)); s.listen(); time.sleep(60)" >/dev/null 2>&1');
    const ports = await waitFor(
      'ports 8123 and 9456 to listen',
      async () => {
        const found = await runtime.listeningPorts(spec.id);
        return found.some((p) => p.port === 8123) && found.some((p) => p.port === 9456) ? found : null;
      },
      10_000,
    );
    expect(ports).toContainEqual({ port: 8123, address: '0.0.0.0' });
    expect(ports).toContainEqual({ port: 9456, address: '::' });
    const served = await shell(runtime, spec.id, 'python3 -c "import urllib.request;print(urllib.request.urlopen(\'http://127.0.0.1:8123/\').status)"');
    expect(served.out.trim()).toBe('200');
  });

  it('reports usage', async () => {
    await shell(runtime, spec.id, 'head -c 5000000 /dev/urandom > /workspace/blob');
    const usage = await runtime.usage(spec.id);
    expect(usage.memoryBytes).toBeGreaterThan(0);
    expect(usage.cpuSeconds).toBeGreaterThan(0);
    expect(usage.diskBytes).toBeGreaterThan(5_000_000);
  });
});
