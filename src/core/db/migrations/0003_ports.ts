// Ports detected inside sandboxes (with their preview password), and server-wide settings such as the
// preview cookie secret, shared by every process using the database.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sandbox_ports')
    .addColumn('sandbox_id', 'text', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('listening', 'integer', (c) => c.notNull())
    .addColumn('detected_at', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sandbox_ports_pk', ['sandbox_id', 'port'])
    .execute();

  await db.schema
    .createTable('server_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('server_settings').execute();
  await db.schema.dropTable('sandbox_ports').execute();
}
