// The Stripe event store on both databases: an event id is claimed by one delivery at a time, a processed
// one is a duplicate, a released one (handling failed) is claimed afresh, and a claim left by a delivery
// that died is taken over once stale.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STALE_CLAIM_MS, StripeEventStore } from '../../src/billing/providers/stripe/event-store.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('stripe event store on %s', (backend) => {
  let t: TestApp;
  let events: StripeEventStore;
  beforeAll(async () => {
    t = await startApp(backend);
    events = new StripeEventStore(t.storage.db);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('claims an event once: in progress for a concurrent delivery, a duplicate once processed', async () => {
    const claims = await Promise.all([events.claim('evt_once', 'invoice.paid'), events.claim('evt_once', 'invoice.paid'), events.claim('evt_once', 'invoice.paid')]);
    expect(claims.sort()).toEqual(['claimed', 'in_progress', 'in_progress']);
    await events.markProcessed('evt_once', 'acc_x');
    expect(await events.claim('evt_once', 'invoice.paid')).toBe('processed');
    const row = await t.storage.db.selectFrom('billing_provider_events').selectAll().where('event_id', '=', 'evt_once').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ provider: 'stripe', type: 'invoice.paid', account_id: 'acc_x', processed_at: expect.any(String) });
  });

  it('claims a released event afresh, and takes over a claim left stale by a delivery that died', async () => {
    expect(await events.claim('evt_release', 'invoice.paid')).toBe('claimed');
    await events.release('evt_release');
    expect(await events.claim('evt_release', 'invoice.paid')).toBe('claimed');

    const start = Date.now();
    expect(await events.claim('evt_stale', 'invoice.paid', start)).toBe('claimed');
    expect(await events.claim('evt_stale', 'invoice.paid', start + STALE_CLAIM_MS - 1000)).toBe('in_progress');
    expect(await events.claim('evt_stale', 'invoice.paid', start + STALE_CLAIM_MS + 1000)).toBe('claimed');
    // A processed event is never taken over, however old.
    await events.markProcessed('evt_stale', null);
    expect(await events.claim('evt_stale', 'invoice.paid', start + 10 * STALE_CLAIM_MS)).toBe('processed');
  });
});
