// A gauge whose database read fails is left out of that scrape, the failure logged and counted; the
// rest of the scrape still answers.
import { describe, expect, it } from 'vitest';
import { gaugeOutbox } from '../../src/metrics/outbox.js';
import { createRegistry } from '../../src/metrics/registry.js';
import { scrapeReads } from '../../src/metrics/scrape-reads.js';
import { parseExposition, valueOf } from './exposition.js';

describe('gauges read at scrape', () => {
  it('leave out what could not be read and keep the rest of the scrape', async () => {
    const registry = createRegistry();
    const warnings: object[] = [];
    let reachable = false;
    gaugeOutbox(registry, scrapeReads(registry, { warn: (obj) => warnings.push(obj) }), {
      counts: async () => {
        if (!reachable) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        return [{ kind: 'notification.webhook', status: 'pending', count: 2 }];
      },
      failedAttemptCounts: async () => [{ kind: 'notification.webhook', count: 1 }],
    });

    const down = parseExposition(await registry.metrics());
    expect(valueOf(down, 'paddock_outbox_backlog', { kind: 'notification.webhook' })).toBeUndefined();
    expect(valueOf(down, 'paddock_outbox_failed_attempts', { kind: 'notification.webhook' })).toBe(1);
    expect(down.get('process_cpu_user_seconds_total')?.samples.length).toBe(1);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ source: 'outbox', err: expect.objectContaining({ message: expect.stringContaining('ECONNREFUSED') }) });

    reachable = true;
    const up = parseExposition(await registry.metrics());
    expect(valueOf(up, 'paddock_outbox_backlog', { kind: 'notification.webhook' })).toBe(2);
    // A scrape reads every metric at once: failures show from the next one.
    expect(valueOf(up, 'paddock_metrics_read_failures_total', { source: 'outbox' })).toBe(2);
  });
});
