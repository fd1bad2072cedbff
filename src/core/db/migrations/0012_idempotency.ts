// Idempotency keys: the first answer to a creating request, kept 24 h per account and key so a retry
// gets it back instead of doing the work twice. The primary key is the lock: the request whose row
// insert succeeds does the work; the others wait for its answer.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    /** sha256 of method, path and the canonical JSON of the validated body. */
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    /** Null while the first request is still running. */
    .addColumn('response_status', 'integer')
    /** JSON object of the response headers worth replaying. */
    .addColumn('response_headers', 'text')
    /** The response body, AES-256-GCM sealed (it can hold a credential: a new API key). */
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
