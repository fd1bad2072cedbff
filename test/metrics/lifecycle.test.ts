// The metrics LifecycleConsumer, fed events of the lifecycle contract's shape: create latency by warm
// or cold start, warm-pool hits and misses, destroy latency, exec latency by outcome, events by type.
import { describe, expect, it } from 'vitest';
import type { ExecFinished, SandboxEvent } from '../../src/sandboxes/lifecycle/contract.js';
import { sandboxLifecycleMetrics } from '../../src/metrics/lifecycle.js';
import { createRegistry } from '../../src/metrics/registry.js';
import { parseExposition, valueOf } from './exposition.js';

let sequence = 0;
function event(type: SandboxEvent['type'], from: SandboxEvent['from'], to: SandboxEvent['to'], data: Record<string, unknown>): SandboxEvent {
  return { id: `evt_${++sequence}`, type, sandboxId: 'sbx_metrics', accountId: 'acc_metrics', at: new Date().toISOString(), from, to, data };
}
const exec = (durationMs: number, exitCode: number, timedOut = false): ExecFinished => ({
  accountId: 'acc_metrics',
  sandboxId: 'sbx_metrics',
  command: 'true',
  exitCode,
  durationMs,
  timedOut,
  output: '',
  truncated: false,
});

async function scrape(registry: ReturnType<typeof createRegistry>) {
  return parseExposition(await registry.metrics());
}

describe('sandbox lifecycle metrics', () => {
  it('observes create latency by warm or cold start and counts warm-pool hits and misses', async () => {
    const registry = createRegistry();
    const consumer = sandboxLifecycleMetrics(registry);
    expect(consumer.name).toBe('metrics');
    await consumer.onEvent!(event('sandbox.created', 'creating', 'running', { duration_ms: 40, warm: true }));
    await consumer.onEvent!(event('sandbox.created', 'creating', 'running', { duration_ms: 1500, warm: false }));
    await consumer.onEvent!(event('sandbox.created', 'creating', 'running', { duration_ms: 3000, warm: false }));

    const families = await scrape(registry);
    expect(valueOf(families, 'paddock_warm_pool_claims_total', { result: 'hit' })).toBe(1);
    expect(valueOf(families, 'paddock_warm_pool_claims_total', { result: 'miss' })).toBe(2);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_count', { warm: 'true' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_sum', { warm: 'true' })).toBeCloseTo(0.04);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_count', { warm: 'false' })).toBe(2);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_sum', { warm: 'false' })).toBeCloseTo(4.5);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_bucket', { warm: 'false', le: '2' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_bucket', { warm: 'false', le: '5' })).toBe(2);
    expect(valueOf(families, 'paddock_sandbox_events_total', { type: 'sandbox.created' })).toBe(3);
  });

  it('observes destroy latency, and counts events that change no status without observing a duration', async () => {
    const registry = createRegistry();
    const consumer = sandboxLifecycleMetrics(registry);
    await consumer.onEvent!(event('sandbox.destroyed', 'running', 'destroyed', { duration_ms: 250, reason: 'deleted' }));
    await consumer.onEvent!(event('sandbox.paused', 'running', 'paused', { duration_ms: 900 }));
    await consumer.onEvent!(event('sandbox.budget_threshold', null, null, { threshold: 0.5, spend_usd: 1 }));
    await consumer.onEvent!(event('sandbox.error', 'running', 'error', { reason: 'the runtime lost it' }));

    const families = await scrape(registry);
    expect(valueOf(families, 'paddock_sandbox_destroy_duration_seconds_count')).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_destroy_duration_seconds_sum')).toBeCloseTo(0.25);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_count', { warm: 'false' })).toBeUndefined();
    expect(valueOf(families, 'paddock_warm_pool_claims_total', { result: 'miss' })).toBe(0);
    for (const type of ['sandbox.destroyed', 'sandbox.paused', 'sandbox.budget_threshold', 'sandbox.error']) expect(valueOf(families, 'paddock_sandbox_events_total', { type }), type).toBe(1);
  });

  it('ignores a duration that is missing or not a non-negative number, but still counts the event', async () => {
    const registry = createRegistry();
    const consumer = sandboxLifecycleMetrics(registry);
    await consumer.onEvent!(event('sandbox.created', 'creating', 'running', { warm: false }));
    await consumer.onEvent!(event('sandbox.destroyed', 'running', 'destroyed', { duration_ms: '12' }));
    await consumer.onEvent!(event('sandbox.destroyed', 'running', 'destroyed', { duration_ms: -5 }));

    const families = await scrape(registry);
    expect(valueOf(families, 'paddock_warm_pool_claims_total', { result: 'miss' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_count', { warm: 'false' })).toBeUndefined();
    expect(valueOf(families, 'paddock_sandbox_destroy_duration_seconds_count')).toBe(0);
    expect(valueOf(families, 'paddock_sandbox_events_total', { type: 'sandbox.destroyed' })).toBe(2);
  });

  it('observes exec latency by outcome', async () => {
    const registry = createRegistry();
    const consumer = sandboxLifecycleMetrics(registry);
    await consumer.onExec!(exec(12, 0));
    await consumer.onExec!(exec(30, 0));
    await consumer.onExec!(exec(700, 2));
    await consumer.onExec!(exec(60_000, -1, true));

    const families = await scrape(registry);
    expect(valueOf(families, 'paddock_sandbox_exec_duration_seconds_count', { outcome: 'exit_zero' })).toBe(2);
    expect(valueOf(families, 'paddock_sandbox_exec_duration_seconds_sum', { outcome: 'exit_zero' })).toBeCloseTo(0.042);
    expect(valueOf(families, 'paddock_sandbox_exec_duration_seconds_bucket', { outcome: 'exit_zero', le: '0.025' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_exec_duration_seconds_count', { outcome: 'exit_nonzero' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_exec_duration_seconds_count', { outcome: 'timed_out' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_exec_duration_seconds_sum', { outcome: 'timed_out' })).toBe(60);
  });

  it("keeps each app's numbers in its own registry", async () => {
    const first = createRegistry();
    const second = createRegistry();
    await sandboxLifecycleMetrics(first).onExec!(exec(5, 0));
    sandboxLifecycleMetrics(second);
    expect(valueOf(await scrape(first), 'paddock_sandbox_exec_duration_seconds_count', { outcome: 'exit_zero' })).toBe(1);
    expect(valueOf(await scrape(second), 'paddock_sandbox_exec_duration_seconds_count', { outcome: 'exit_zero' })).toBeUndefined();
  });
});
