// The Stripe events already taken (billing_provider_events): a delivery claims its event id before
// handling it and marks it processed after, so a redelivery is answered without being handled again.
import type { Db } from '../../../core/db/handles.js';

const PROVIDER = 'stripe';
/** A claim older than this was left by a delivery that died mid-way: the next delivery takes it over. */
export const STALE_CLAIM_MS = 5 * 60_000;

export type Claim = 'claimed' | 'processed' | 'in_progress';

export class StripeEventStore {
  constructor(private readonly db: Db) {}

  /** Claims the event for this delivery: `processed` when handled before, `in_progress` while another delivery handles it. */
  async claim(eventId: string, type: string, nowMs = Date.now()): Promise<Claim> {
    const now = new Date(nowMs).toISOString();
    const inserted = await this.db
      .insertInto('billing_provider_events')
      .values({ provider: PROVIDER, event_id: eventId, type, account_id: null, claimed_at: now, processed_at: null })
      .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return 'claimed';
    const staleBefore = new Date(nowMs - STALE_CLAIM_MS).toISOString();
    const takenOver = await this.db
      .updateTable('billing_provider_events')
      .set({ claimed_at: now })
      .where('provider', '=', PROVIDER)
      .where('event_id', '=', eventId)
      .where('processed_at', 'is', null)
      .where('claimed_at', '<', staleBefore)
      .executeTakeFirst();
    if (Number(takenOver.numUpdatedRows) === 1) return 'claimed';
    const row = await this.db.selectFrom('billing_provider_events').select('processed_at').where('provider', '=', PROVIDER).where('event_id', '=', eventId).executeTakeFirst();
    return row?.processed_at ? 'processed' : 'in_progress';
  }

  async markProcessed(eventId: string, accountId: string | null, nowMs = Date.now()): Promise<void> {
    await this.db
      .updateTable('billing_provider_events')
      .set({ processed_at: new Date(nowMs).toISOString(), account_id: accountId })
      .where('provider', '=', PROVIDER)
      .where('event_id', '=', eventId)
      .execute();
  }

  /** Handling failed: the claim goes, so Stripe's retry handles the event afresh. */
  async release(eventId: string): Promise<void> {
    await this.db.deleteFrom('billing_provider_events').where('provider', '=', PROVIDER).where('event_id', '=', eventId).where('processed_at', 'is', null).execute();
  }
}
