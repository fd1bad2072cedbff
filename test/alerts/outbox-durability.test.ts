// The outbox survives restarts and shares work safely: a delivery waiting for its retry is delivered by
// the next server on the same database; a delivery whose worker died mid-attempt is taken over when
// its lease expires; two servers on one database deliver every row exactly once.
import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

const FAST = {
  PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
  PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
  PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50',
};

describe.each(BACKENDS)('outbox durability on %s', (backend) => {
  const open: TestApp[] = [];
  const receivers: HttpReceiver[] = [];
  afterEach(async () => {
    // Apps started with `reuse` share one data dir and database: close newest first, and only the last
    // one closed removes them.
    const apps = open.splice(0).reverse();
    for (const [index, app] of apps.entries()) await app.close({ keepData: index < apps.length - 1 });
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  async function start(env: Record<string, string>, reuse?: TestApp) {
    const app = await startApp(backend, { ...FAST, ...env }, reuse ? { reuse: { dataDir: reuse.dataDir, databaseUrl: reuse.databaseUrl } } : {});
    open.push(app);
    return app;
  }
  async function receiver(respond?: HttpReceiver['respond']) {
    const started = await startHttpReceiver(respond);
    receivers.push(started);
    return started;
  }
  const raise = (t: TestApp, accountId: string, sandboxId: string) =>
    t.services.alerts.raise({ accountId, type: 'sandbox_error', resource: { kind: 'sandbox', id: sandboxId }, sandboxId, message: `sandbox ${sandboxId} failed` });
  const deliveries = async (t: TestApp, key: string) => (await t.request('GET', '/v1/notifications/deliveries?limit=100', { token: key })).body as any[];

  it('delivers after a restart what was waiting for a retry', async () => {
    const hook = await receiver((_, index) => (index === 0 ? 500 : 200));
    const first = await start({ PADDOCK_OUTBOX_BACKOFF_BASE_MS: '1500' });
    const { key, account } = await first.signup();
    await first.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { webhook: { enabled: true, url: hook.url } } } });
    await raise(first, account.id, 'sbx_restart');
    const [waiting] = await waitFor('the first failed attempt', async () => {
      const list = await deliveries(first, key);
      return list[0]?.attempts === 1 && list[0].status === 'pending' ? list : null;
    });
    expect(waiting.next_attempt_at > new Date().toISOString()).toBe(true);

    await first.close({ keepData: true });
    open.splice(open.indexOf(first), 1);
    expect(hook.requests).toHaveLength(1);

    const second = await start({ PADDOCK_OUTBOX_BACKOFF_BASE_MS: '1500' }, first);
    const [delivered] = await waitFor('the delivery by the restarted server', async () => {
      const list = await deliveries(second, key);
      return list[0]?.status === 'delivered' ? list : null;
    });
    expect(delivered.id).toBe(waiting.id);
    expect(delivered.attempt_history.map((a: any) => [a.attempt, a.outcome, a.status_code])).toEqual([
      [1, 'failed', 500],
      [2, 'delivered', 200],
    ]);
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([waiting.id, waiting.id]);
  });

  it('takes over a delivery whose worker died mid-attempt once the lease expires', async () => {
    const hook = await receiver((_, index) => (index === 0 ? 500 : 200));
    const first = await start({ PADDOCK_OUTBOX_BACKOFF_BASE_MS: '600000' });
    const { key, account } = await first.signup();
    await first.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { chat_a: { enabled: true, webhook_url: hook.url } } } });
    await raise(first, account.id, 'sbx_lease');
    const [waiting] = await waitFor('the first failed attempt', async () => {
      const list = await deliveries(first, key);
      return list[0]?.attempts === 1 && list[0].status === 'pending' ? list : null;
    });
    await first.close({ keepData: true });
    open.splice(open.indexOf(first), 1);

    // What a worker killed during its second attempt leaves behind: the row leased to it, the lease now
    // expired, and an attempt that never finished.
    const second = await start({ PADDOCK_OUTBOX_BACKOFF_BASE_MS: '600000', PADDOCK_OUTBOX_POLL_INTERVAL_MS: '60000' }, first);
    const past = new Date(Date.now() - 1000).toISOString();
    await second.storage.db.transaction().execute(async (trx) => {
      await trx.updateTable('outbox').set({ status: 'delivering', attempts: 2, leased_by: 'wkr_dead', lease_expires_at: past }).where('id', '=', waiting.id).execute();
      await trx
        .insertInto('outbox_attempts')
        .values({
          delivery_id: waiting.id,
          attempt: 2,
          worker_id: 'wkr_dead',
          started_at: past,
          finished_at: null,
          outcome: null,
          status_code: null,
          error: null,
          response_excerpt: null,
          duration_ms: null,
        })
        .execute();
    });
    second.services.outbox.wake();

    const [taken] = await waitFor('the taken-over delivery', async () => {
      const list = await deliveries(second, key);
      return list[0]?.status === 'delivered' ? list : null;
    });
    expect(taken.attempt_history.map((a: any) => [a.attempt, a.outcome])).toEqual([
      [1, 'failed'],
      [2, 'abandoned'],
      [3, 'delivered'],
    ]);
    expect(taken.attempt_history[1].error).toMatch(/lease expired/);
    expect(hook.requests).toHaveLength(2);
  });

  it('delivers every row exactly once with two servers on one database', async () => {
    const hook = await receiver();
    const a = await start({ PADDOCK_OUTBOX_BACKOFF_BASE_MS: '100' });
    const b = await start({ PADDOCK_OUTBOX_BACKOFF_BASE_MS: '100' }, a);
    const { key, account } = await a.signup();
    await a.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { webhook: { enabled: true, url: hook.url } } } });
    // All rows become due in one commit, then both workers are woken at once: they claim concurrently.
    const count = 40;
    await a.storage.db.transaction().execute(async (trx) => {
      for (let i = 0; i < count; i++) {
        await a.services.alerts.raise({ accountId: account.id, type: 'sandbox_error', resource: { kind: 'sandbox', id: `sbx_${i}` }, sandboxId: `sbx_${i}`, message: 'x' }, { db: trx });
      }
    });
    a.services.outbox.wake();
    b.services.outbox.wake();
    const settled = await waitFor('every delivery delivered', async () => {
      const list = await deliveries(b, key);
      return list.length === count && list.every((d) => d.status === 'delivered') ? list : null;
    });
    const ids = hook.requests.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
    expect(settled.every((d) => d.attempts === 1)).toBe(true);
    const workers = await a.storage.db.selectFrom('outbox_attempts').select('worker_id').distinct().execute();
    expect(workers.length).toBeGreaterThanOrEqual(1);
  });

  it('deletes finished deliveries past the retention at start, and keeps pending and recent ones', async () => {
    const hook = await receiver((_, index) => (index === 0 ? 200 : 500));
    const first = await start({ PADDOCK_OUTBOX_BACKOFF_BASE_MS: '600000' });
    const { key, account } = await first.signup();
    await first.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { webhook: { enabled: true, url: hook.url } } } });
    await raise(first, account.id, 'sbx_old');
    await waitFor('the first delivery', async () => ((await deliveries(first, key))[0]?.status === 'delivered' ? true : null));
    await raise(first, account.id, 'sbx_waiting');
    await waitFor('the second delivery waiting for its retry', async () => {
      const list = await deliveries(first, key);
      return list.length === 2 && list[0].status === 'pending' && list[0].attempts === 1 ? true : null;
    });
    await raise(first, account.id, 'sbx_recent');
    // Age two rows past the 30-day default (this server pruned at its start already): only the
    // delivered one may go, with its attempts; the one waiting for a retry stays.
    const [oldest, waiting] = (await deliveries(first, key)).reverse();
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await first.storage.db.updateTable('outbox').set({ updated_at: old }).where('id', 'in', [oldest.id, waiting.id]).execute();
    await first.close({ keepData: true });
    open.splice(open.indexOf(first), 1);

    const second = await start({ PADDOCK_OUTBOX_BACKOFF_BASE_MS: '600000' }, first);
    const left = await waitFor('the old delivery pruned', async () => {
      const list = await deliveries(second, key);
      return list.some((d) => d.id === oldest.id) ? null : list;
    });
    expect(left.map((d) => d.id)).toContain(waiting.id);
    expect(left).toHaveLength(2);
    const attempts = await second.storage.db.selectFrom('outbox_attempts').select('delivery_id').where('delivery_id', '=', oldest.id).execute();
    expect(attempts).toEqual([]);
  });
});
