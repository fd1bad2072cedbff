// Conformance: commands run through paddock-agent inside the sandbox, not a new `runc exec`/`runsc exec`,
// and the agent finds the host again after the server restarts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeName, SandboxRuntime } from '../../src/runtime/runtime.js';
import { shell, testRuntime, testSpec } from '../helpers/runtime-environment.js';
import { ensureTestTemplate } from '../helpers/test-template.js';
import { waitFor } from '../helpers/wait-for.js';

describe.each(['runc', 'gvisor'] as RuntimeName[])('%s: exec agent', (driver) => {
  let runtime: SandboxRuntime;
  const spec = testSpec();

  beforeAll(async () => {
    await ensureTestTemplate();
    runtime = testRuntime(driver);
    await runtime.init();
    await runtime.create(spec);
  });

  afterAll(async () => {
    await runtime?.destroy(spec.id);
  });

  /** A process started by `runc exec`/`runsc exec` has no parent inside the sandbox; one run by the agent has the agent. */
  const parentOfCommand = async (on: SandboxRuntime) => (await shell(on, spec.id, 'tr "\\0" " " < /proc/$PPID/cmdline')).out;

  it('runs commands as children of the agent', async () => {
    expect(await parentOfCommand(runtime)).toContain('/.paddock/agent');
  });

  it('runs many commands at once, each with its own output', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => shell(runtime, spec.id, `sleep 0.2; echo ${i}; echo e${i} >&2; exit ${i % 3}`)));
    results.forEach((result, i) => expect(result).toMatchObject({ out: `${i}\n`, err: `e${i}\n`, code: i % 3 }));
  });

  it('serves sequential commands with the same worker, and keeps only a few idle after a burst', async () => {
    // A fork per exec costs milliseconds under gVisor: back-to-back commands are served by the idle workers
    // already there (at most 4 after the burst of the test before), not a new one each.
    const parents = new Set<string>();
    for (let i = 0; i < 8; i++) parents.add((await shell(runtime, spec.id, 'echo $PPID')).out);
    expect(parents.size).toBeLessThanOrEqual(4);
    await Promise.all(Array.from({ length: 10 }, () => shell(runtime, spec.id, 'sleep 0.3')));
    // init (its command line names the agent), the agent, and at most 4 idle workers, one running this.
    const agents = await shell(runtime, spec.id, 'grep -l "^/[.]paddock/agent" /proc/[0-9]*/cmdline | wc -l');
    expect(Number(agents.out)).toBeGreaterThanOrEqual(2);
    expect(Number(agents.out)).toBeLessThanOrEqual(6);
  });

  it('serves the commands after a burst with at most 4 workers, however many commands ended at the same instant', async () => {
    // Commands end together at a gate. Each worker decides whether it stays idle before its command's
    // last frame, so when the next command comes the parent sees the idle ones and forks none: a fork in
    // that moment made a fifth idle worker for good (it failed the test above once in CI).
    for (let round = 0; round < 4; round++) {
      const gate = `/tmp/gate-${round}`;
      const waiting = Array.from({ length: 12 }, () => shell(runtime, spec.id, `while [ ! -e ${gate} ]; do sleep 0.01; done`));
      const atGate = async () => Number((await shell(runtime, spec.id, `grep -l "gat[e]-${round}" /proc/[0-9]*/cmdline | wc -l`)).out);
      await waitFor('12 commands waiting at the gate', async () => (await atGate()) >= 12, 15_000, 100);
      await shell(runtime, spec.id, `touch ${gate}`);
      await Promise.all(waiting);
      const parents = new Set<string>();
      for (let i = 0; i < 8; i++) parents.add((await shell(runtime, spec.id, 'echo $PPID')).out);
      expect(parents.size).toBeLessThanOrEqual(4);
    }
  });

  it('passes large stdin and output through intact', async () => {
    const input = Buffer.alloc(3 * 1024 * 1024 + 17, 'abcdefgh');
    const result = await runtime.exec(spec.id, { command: 'sha256sum | cut -c1-16; head -c 2000000 /dev/zero | wc -c', stdin: input, timeoutMs: 30_000, maxOutputBytes: 4096 });
    const { createHash } = await import('node:crypto');
    expect(result.stdout.toString()).toBe(`${createHash('sha256').update(input).digest('hex').slice(0, 16)}\n2000000\n`);
  });

  it('reports a working directory that does not exist as a failed command', async () => {
    const result = await runtime.exec(spec.id, { command: 'pwd', cwd: '/no/such/dir', timeoutMs: 10_000, maxOutputBytes: 1000 });
    expect(result.exitCode).toBe(126);
    expect(result.stderr.toString()).toContain('/no/such/dir');
  });

  it('ends a running command at once when its sandbox is destroyed', async () => {
    const doomed = testSpec();
    await runtime.create(doomed);
    const running = runtime.exec(doomed.id, { command: 'sleep 30', timeoutMs: 60_000, maxOutputBytes: 1000 }).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    await runtime.destroy(doomed.id);
    await running;
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('is found again by a new server process after a restart', async () => {
    await runtime.close?.();
    runtime = testRuntime(driver);
    await runtime.init();
    const { alive } = await runtime.reconcile([spec.id]);
    expect(alive).toEqual([spec.id]);
    expect((await shell(runtime, spec.id, 'echo again')).out).toBe('again\n');
    expect(await parentOfCommand(runtime)).toContain('/.paddock/agent');
  });
});
