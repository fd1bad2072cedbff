// A2A push-notification configs (a2a_push_configs): where a client wants each status change of one of
// its tasks POSTed. The URL passes the SSRF guard when it is saved and again at every delivery; the
// token and authentication are stored sealed (push-credentials.ts).
import type { Kysely } from 'kysely';
import type { AuthenticationInfo, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Database } from '../../core/db/schema.js';
import type { Tx } from '../../core/db/handles.js';
import { newId } from '../../core/ids.js';
import { checkOutboundUrl, OutboundRefused, type OutboundPolicy } from '../../core/net/outbound-guard.js';
import { sealPlainValues } from '../../core/sealed-columns.js';
import { nowIso } from '../../core/time.js';
import type { PushCredentialColumn, PushCredentialSealer, PushCredentials } from './push-credentials.js';

/** Configs a task may hold. */
export const MAX_PUSH_CONFIGS_PER_TASK = 10;

/** A config as the client set it, its credentials opened. */
export interface StoredPushConfig extends PushCredentials {
  id: string;
  taskId: string;
  url: string;
}

type Row = Database['a2a_push_configs'];

const CREDENTIAL_COLUMNS: PushCredentialColumn[] = ['token', 'authentication'];

export function toA2aConfig(config: StoredPushConfig): TaskPushNotificationConfig {
  return { tenant: '', id: config.id, taskId: config.taskId, url: config.url, token: config.token ?? '', authentication: config.authentication ?? undefined };
}

export class PushConfigStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly policy: OutboundPolicy,
    /** Tokens and authentications are stored sealed, bound to their config's id. */
    private readonly credentials: PushCredentialSealer,
  ) {}

  /** Seals the credentials stored in plain text before sealing existed; run at start-up, safe on every node at once. */
  async sealStoredSecrets(): Promise<void> {
    for (const column of CREDENTIAL_COLUMNS) {
      await sealPlainValues(this.db, { table: 'a2a_push_configs', key: 'id', column, seal: (value, id) => this.credentials.sealColumn(column, value, id) });
    }
  }

  /** Throws RequestMalformedError when the URL is refused or the task holds too many configs. */
  async create(accountId: string, taskId: string, config: TaskPushNotificationConfig): Promise<StoredPushConfig> {
    try {
      checkOutboundUrl(config.url, this.policy);
    } catch (error) {
      if (error instanceof OutboundRefused) throw new RequestMalformedError(`url: the URL ${error.message}`);
      throw error;
    }
    const { count } = await this.db
      .selectFrom('a2a_push_configs')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('task_id', '=', taskId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_PUSH_CONFIGS_PER_TASK) throw new RequestMalformedError(`task ${taskId} already has ${MAX_PUSH_CONFIGS_PER_TASK} push-notification configs, the most a task may hold`);
    const id = newId('apn');
    const credentials = { token: config.token || null, authentication: authenticationOf(config) };
    await this.db
      .insertInto('a2a_push_configs')
      .values({ id, account_id: accountId, task_id: taskId, url: config.url, ...this.credentials.seal(credentials, id), created_at: nowIso() })
      .execute();
    return { id, taskId, url: config.url, ...credentials };
  }

  async list(accountId: string, taskId: string, db: Kysely<Database> | Tx = this.db): Promise<StoredPushConfig[]> {
    const rows = await db.selectFrom('a2a_push_configs').selectAll().where('account_id', '=', accountId).where('task_id', '=', taskId).orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => this.opened(row));
  }

  async get(accountId: string, taskId: string, id: string): Promise<StoredPushConfig | null> {
    const row = await this.db.selectFrom('a2a_push_configs').selectAll().where('account_id', '=', accountId).where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
    return row ? this.opened(row) : null;
  }

  /** True when there was one. */
  async delete(accountId: string, taskId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('a2a_push_configs').where('account_id', '=', accountId).where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  private opened(row: Row): StoredPushConfig {
    return { id: row.id, taskId: row.task_id, url: row.url, ...this.credentials.open(row, row.id) };
  }
}

function authenticationOf(config: TaskPushNotificationConfig): AuthenticationInfo | null {
  return config.authentication?.scheme ? { scheme: config.authentication.scheme, credentials: config.authentication.credentials } : null;
}
