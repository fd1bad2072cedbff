// The billing provider's webhook bookkeeping (migration 0020), beside schema.ts as a2a-tables.ts is.

export interface BillingProviderEventsTable {
  /** `stripe`. */
  provider: string;
  /** The provider's event id (`evt_…`). */
  event_id: string;
  type: string;
  /** The account the event turned out to be about, when one was found. */
  account_id: string | null;
  claimed_at: string;
  /** Null while a delivery is handling the event. */
  processed_at: string | null;
}
