// SQL for the sandbox timeline (`sandbox_events`).
import type { Kysely, Selectable } from 'kysely';
import type { Database, SandboxEventsTable } from '../../core/db/schema.js';
import type { SandboxEventType } from '../../core/events/published.js';
import type { SandboxEvent, SandboxStatus } from './contract.js';

export type SandboxEventRow = Selectable<SandboxEventsTable>;

/**
 * Appends an event with the sandbox's next sequence number. The caller has updated the sandbox's row in
 * the same transaction, so its row lock orders concurrent events of one sandbox (PostgreSQL).
 */
export async function appendEvent(db: Kysely<Database>, event: SandboxEvent): Promise<void> {
  const last = await db
    .selectFrom('sandbox_events')
    .select((eb) => eb.fn.max('sequence').as('n'))
    .where('sandbox_id', '=', event.sandboxId)
    .executeTakeFirst();
  await db
    .insertInto('sandbox_events')
    .values({
      id: event.id,
      sandbox_id: event.sandboxId,
      account_id: event.accountId,
      sequence: Number(last?.n ?? 0) + 1,
      type: event.type,
      from_status: event.from,
      to_status: event.to,
      data: JSON.stringify(event.data),
      created_at: event.at,
    })
    .execute();
}

/** A sandbox's events, oldest first. */
export async function listEvents(db: Kysely<Database>, sandboxId: string, page: { limit: number; offset: number }): Promise<SandboxEvent[]> {
  const rows = await db.selectFrom('sandbox_events').selectAll().where('sandbox_id', '=', sandboxId).orderBy('sequence', 'asc').limit(page.limit).offset(page.offset).execute();
  return rows.map(toEvent);
}

export function toEvent(row: SandboxEventRow): SandboxEvent {
  return {
    id: row.id,
    type: row.type as SandboxEventType,
    sandboxId: row.sandbox_id,
    accountId: row.account_id,
    at: row.created_at,
    from: row.from_status as SandboxStatus | null,
    to: row.to_status as SandboxStatus | null,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}
