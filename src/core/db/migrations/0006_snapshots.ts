// Snapshots of sandbox filesystems, the account secrets store, and the sandbox columns pause/resume and
// batch `secrets` need.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('snapshots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // No foreign key to sandboxes: sandbox rows stay (status destroyed), and snapshots outlive them anyway.
    .addColumn('sandbox_id', 'text', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('snapshots_sandbox_idx').on('snapshots').columns(['sandbox_id', 'id']).execute();
  await db.schema.createIndex('snapshots_account_idx').on('snapshots').columns(['account_id']).execute();

  await db.schema
    .createTable('account_secrets')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    /** `v1:<iv>:<tag>:<ciphertext>` (AES-256-GCM, base64 parts), bound to account and name. */
    .addColumn('ciphertext', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_secrets_pk', ['account_id', 'name'])
    .execute();

  await db.schema
    .alterTable('sandboxes')
    .addColumn('secrets', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('sandboxes').addColumn('paused_at', 'text').execute();
  await db.schema.createIndex('sandboxes_status_idx').on('sandboxes').columns(['status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('sandboxes_status_idx').execute();
  await db.schema.alterTable('sandboxes').dropColumn('paused_at').execute();
  await db.schema.alterTable('sandboxes').dropColumn('secrets').execute();
  await db.schema.dropTable('account_secrets').execute();
  await db.schema.dropTable('snapshots').execute();
}
