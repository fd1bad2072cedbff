// SQL for detected ports and their preview passwords.
import type { Kysely, Selectable } from 'kysely';
import type { Database, SandboxPortsTable } from '../core/db/schema.js';

export type PortRow = Selectable<SandboxPortsTable>;

/** Every recorded port, of every server's sandboxes (the ports of destroyed sandboxes are forgotten). */
export function allPorts(db: Kysely<Database>) {
  return db.selectFrom('sandbox_ports').selectAll().execute();
}

const IDS_PER_QUERY = 500;

/** The recorded ports of these sandboxes. */
export async function portsOf(db: Kysely<Database>, sandboxIds: readonly string[]): Promise<PortRow[]> {
  const rows: PortRow[] = [];
  for (let start = 0; start < sandboxIds.length; start += IDS_PER_QUERY) {
    rows.push(
      ...(await db
        .selectFrom('sandbox_ports')
        .selectAll()
        .where('sandbox_id', 'in', sandboxIds.slice(start, start + IDS_PER_QUERY))
        .execute()),
    );
  }
  return rows;
}

export function listeningPorts(db: Kysely<Database>, sandboxId: string) {
  return db.selectFrom('sandbox_ports').selectAll().where('sandbox_id', '=', sandboxId).where('listening', '=', 1).orderBy('port').execute();
}

export function findPort(db: Kysely<Database>, sandboxId: string, port: number) {
  return db.selectFrom('sandbox_ports').selectAll().where('sandbox_id', '=', sandboxId).where('port', '=', port).executeTakeFirst();
}

/** A port started listening (again): keeps a password set earlier. */
export function markListening(db: Kysely<Database>, sandboxId: string, port: number, protocol: string, now: string) {
  return db
    .insertInto('sandbox_ports')
    .values({ sandbox_id: sandboxId, port, protocol, listening: 1, detected_at: now, password_hash: null, protected: 0, updated_at: now })
    .onConflict((oc) => oc.columns(['sandbox_id', 'port']).doUpdateSet({ protocol, listening: 1, detected_at: now, updated_at: now }))
    .execute();
}

/** A port stopped listening: forgotten, unless it carries a password, which must survive a restart of the server inside. */
export async function markStopped(db: Kysely<Database>, sandboxId: string, port: number, now: string) {
  await db.deleteFrom('sandbox_ports').where('sandbox_id', '=', sandboxId).where('port', '=', port).where('protected', '=', 0).execute();
  await db.updateTable('sandbox_ports').set({ listening: 0, detected_at: null, updated_at: now }).where('sandbox_id', '=', sandboxId).where('port', '=', port).execute();
}

/** Forgets every port of the sandboxes, protected ones too: for destroyed sandboxes. */
export async function forgetSandboxes(db: Kysely<Database>, sandboxIds: readonly string[]) {
  if (sandboxIds.length) await db.deleteFrom('sandbox_ports').where('sandbox_id', 'in', sandboxIds).execute();
}

export function setPassword(db: Kysely<Database>, sandboxId: string, port: number, passwordHash: string | null, now: string) {
  const isProtected = passwordHash ? 1 : 0;
  return db
    .insertInto('sandbox_ports')
    .values({ sandbox_id: sandboxId, port, protocol: 'tcp', listening: 0, detected_at: null, password_hash: passwordHash, protected: isProtected, updated_at: now })
    .onConflict((oc) => oc.columns(['sandbox_id', 'port']).doUpdateSet({ password_hash: passwordHash, protected: isProtected, updated_at: now }))
    .execute();
}

/** Reads the server-wide setting `name`, creating it with `create()` the first time (first writer wins). */
export async function serverSetting(db: Kysely<Database>, name: string, create: () => string, now: string): Promise<string> {
  await db
    .insertInto('server_settings')
    .values({ name, value: create(), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('server_settings').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

export function forgetIfNotListening(db: Kysely<Database>, sandboxId: string, port: number) {
  return db.deleteFrom('sandbox_ports').where('sandbox_id', '=', sandboxId).where('port', '=', port).where('listening', '=', 0).where('protected', '=', 0).execute();
}
