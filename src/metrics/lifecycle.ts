// Sandbox create, exec and destroy latency and warm-pool hits, fed by the lifecycle's committed events
// (a LifecycleConsumer), not by counters scattered through the sandbox code.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ExecFinished, LifecycleConsumer, SandboxEvent } from '../sandboxes/lifecycle/contract.js';

const SANDBOX_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120];
const EXEC_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

function seconds(data: Record<string, unknown>): number | null {
  const ms = data.duration_ms;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null;
}

function execOutcome(exec: ExecFinished): 'timed_out' | 'exit_zero' | 'exit_nonzero' {
  if (exec.timedOut) return 'timed_out';
  return exec.exitCode === 0 ? 'exit_zero' : 'exit_nonzero';
}

export function sandboxLifecycleMetrics(registry: Registry): LifecycleConsumer {
  const events = new Counter({
    name: 'paddock_sandbox_events_total',
    help: 'Sandbox lifecycle events committed by this server, by type (sandbox.created, sandbox.error, sandbox.budget_threshold, …).',
    labelNames: ['type'] as const,
    registers: [registry],
  });
  const create = new Histogram({
    name: 'paddock_sandbox_create_duration_seconds',
    help: 'Time from a create request to the sandbox running, by whether a warm-pool sandbox was claimed (warm="true") or one was started (warm="false").',
    labelNames: ['warm'] as const,
    buckets: SANDBOX_BUCKETS_SECONDS,
    registers: [registry],
  });
  const destroy = new Histogram({
    name: 'paddock_sandbox_destroy_duration_seconds',
    help: 'Time to destroy a sandbox (runtime teardown to the destroyed status).',
    buckets: SANDBOX_BUCKETS_SECONDS,
    registers: [registry],
  });
  const exec = new Histogram({
    name: 'paddock_sandbox_exec_duration_seconds',
    help: 'Duration of commands run through exec, by outcome: exit_zero, exit_nonzero, timed_out.',
    labelNames: ['outcome'] as const,
    buckets: EXEC_BUCKETS_SECONDS,
    registers: [registry],
  });
  const warmPool = new Counter({
    name: 'paddock_warm_pool_claims_total',
    help: 'Sandbox creates by warm-pool result: hit (a pre-started sandbox was claimed) or miss (one had to be started).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  warmPool.inc({ result: 'hit' }, 0);
  warmPool.inc({ result: 'miss' }, 0);

  return {
    name: 'metrics',
    onEvent(event: SandboxEvent) {
      events.inc({ type: event.type });
      const took = seconds(event.data);
      if (event.type === 'sandbox.created') {
        const warm = event.data.warm === true;
        warmPool.inc({ result: warm ? 'hit' : 'miss' });
        if (took !== null) create.observe({ warm: String(warm) }, took);
      } else if (event.type === 'sandbox.destroyed' && took !== null) {
        destroy.observe(took);
      }
    },
    onExec(finished: ExecFinished) {
      exec.observe({ outcome: execOutcome(finished) }, Math.max(0, finished.durationMs) / 1000);
    },
  };
}
