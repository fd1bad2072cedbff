// A run's key/value state: the spec's limits, TTLs and `created_by`, for the API, for stages and for
// commands inside stage sandboxes (through the state gateway). Every call is scoped to one run id the
// caller already proved it may touch.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../../core/db/dialect.js';
import type { Database } from '../../core/db/schema.js';
import type { Tx } from '../../core/db/handles.js';
import { Invalid, NotFound } from '../../core/errors.js';
import { isoAfterSeconds, nowIso } from '../../core/time.js';
import type { StateEntryType } from '../stages/contract.js';
import { DEFAULT_TTL_SECONDS, MAX_ENTRIES_PER_RUN, MAX_KEY_CHARS, MAX_TOTAL_BYTES_PER_RUN, MAX_TTL_SECONDS, MAX_VALUE_BYTES } from './limits.js';
import * as store from './store.js';

export interface PutStateInput {
  value: unknown;
  type?: StateEntryType;
  mime_type?: string;
  created_by?: string;
  ttl_seconds?: number;
}

export function stateEntryView(row: store.StateRow) {
  return {
    key: row.key,
    value: row.value,
    type: row.type,
    mime_type: row.mime_type,
    size_bytes: row.size_bytes,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    expires_at: row.expires_at,
  };
}

function validateKey(key: string): void {
  if (key.length === 0) throw new Invalid('key', 'must not be empty');
  if (key.length > MAX_KEY_CHARS) throw new Invalid('key', `exceeds ${MAX_KEY_CHARS} characters (${key.length})`);
}

export class StateService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
  ) {}

  async list(runId: string) {
    return (await store.listEntries(this.db, runId, nowIso())).map(stateEntryView);
  }

  async get(runId: string, key: string) {
    const row = await store.findEntry(this.db, runId, key, nowIso());
    if (!row) throw new NotFound(`state key "${key}"`);
    return stateEntryView(row);
  }

  /** Values by key for CEL scopes: JSON entries parsed, the others as stored strings. */
  async values(runId: string, db: Kysely<Database> = this.db): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    for (const row of await store.listEntries(db, runId, nowIso())) {
      values[row.key] = row.value;
      if (row.type === 'json') {
        try {
          values[row.key] = JSON.parse(row.value);
        } catch {}
      }
    }
    return values;
  }

  async put(runId: string, key: string, input: PutStateInput, createdBy: string) {
    return this.db.transaction().execute((trx) => this.putInside(trx, runId, key, input, createdBy));
  }

  /** `put` inside the caller's transaction (a run's creation, an approval's reply). */
  async putInside(trx: Tx, runId: string, key: string, input: PutStateInput, createdBy: string) {
    validateKey(key);
    const ttl = input.ttl_seconds ?? DEFAULT_TTL_SECONDS;
    if (!Number.isInteger(ttl) || ttl < 1) throw new Invalid('body.ttl_seconds', 'must be a positive integer');
    if (ttl > MAX_TTL_SECONDS) throw new Invalid('body.ttl_seconds', `exceeds the maximum of ${MAX_TTL_SECONDS} seconds (30 days)`);
    if (input.value === undefined || input.value === null) throw new Invalid('body.value', 'is required');
    const value = typeof input.value === 'string' ? input.value : JSON.stringify(input.value);
    const type = input.type ?? (typeof input.value === 'string' ? 'string' : 'json');
    const sizeBytes = Buffer.byteLength(value, 'utf8');
    if (sizeBytes > MAX_VALUE_BYTES) throw new Invalid('body.value', `exceeds ${MAX_VALUE_BYTES} bytes (1 MB): ${sizeBytes} bytes`);
    if (createdBy.length === 0 || createdBy.length > 256) throw new Invalid('body.created_by', 'must be 1-256 characters');
    const now = new Date();
    const row: store.StateRow = {
      run_id: runId,
      key,
      value,
      type,
      mime_type: input.mime_type ?? null,
      size_bytes: sizeBytes,
      created_by: createdBy,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      expires_at: isoAfterSeconds(ttl, now),
    };
    // Serializes writers of one run so two concurrent puts cannot both pass the limits.
    await this.dialect.lockRowForUpdate(trx, 'pipeline_runs', runId);
    await store.purgeExpired(trx, row.created_at, runId);
    const existing = await trx.selectFrom('pipeline_run_state').select('created_at').where('run_id', '=', runId).where('key', '=', key).executeTakeFirst();
    if (existing) row.created_at = existing.created_at;
    const usage = await store.usage(trx, runId, key);
    if (usage.entries + 1 > MAX_ENTRIES_PER_RUN) throw new Invalid('key', `would exceed ${MAX_ENTRIES_PER_RUN} state entries for this run`);
    if (usage.bytes + sizeBytes > MAX_TOTAL_BYTES_PER_RUN) throw new Invalid('body.value', `would exceed ${MAX_TOTAL_BYTES_PER_RUN} bytes (10 MB) of state for this run`);
    await store.upsertEntry(trx, row);
    return stateEntryView(row);
  }

  async delete(runId: string, key: string): Promise<void> {
    if (!(await store.deleteEntry(this.db, runId, key, nowIso()))) throw new NotFound(`state key "${key}"`);
  }

  async purgeExpired(): Promise<number> {
    return store.purgeExpired(this.db, nowIso());
  }
}
