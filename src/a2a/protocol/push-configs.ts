// A2A push-notification configs (a2a_push_configs): where a client wants each status change of one of
// its tasks POSTed. The URL passes the SSRF guard when it is saved and again at every delivery.
import type { Kysely } from 'kysely';
import type { AuthenticationInfo, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Database } from '../../core/db/schema.js';
import type { Tx } from '../../core/db/handles.js';
import { newId } from '../../core/ids.js';
import { checkOutboundUrl, OutboundRefused, type OutboundPolicy } from '../../core/net/outbound-guard.js';
import { nowIso } from '../../core/time.js';

/** Configs a task may hold. */
export const MAX_PUSH_CONFIGS_PER_TASK = 10;

export interface StoredPushConfig {
  id: string;
  taskId: string;
  url: string;
  token: string | null;
  authentication: AuthenticationInfo | null;
}

type Row = Database['a2a_push_configs'];

function fromRow(row: Pick<Row, 'id' | 'task_id' | 'url' | 'token' | 'authentication'>): StoredPushConfig {
  return { id: row.id, taskId: row.task_id, url: row.url, token: row.token, authentication: row.authentication ? (JSON.parse(row.authentication) as AuthenticationInfo) : null };
}

export function toA2aConfig(config: StoredPushConfig): TaskPushNotificationConfig {
  return { tenant: '', id: config.id, taskId: config.taskId, url: config.url, token: config.token ?? '', authentication: config.authentication ?? undefined };
}

export class PushConfigStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly policy: OutboundPolicy,
  ) {}

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
    const authentication = config.authentication?.scheme ? { scheme: config.authentication.scheme, credentials: config.authentication.credentials } : null;
    const row = {
      id: newId('apn'),
      account_id: accountId,
      task_id: taskId,
      url: config.url,
      token: config.token || null,
      authentication: authentication ? JSON.stringify(authentication) : null,
      created_at: nowIso(),
    };
    await this.db.insertInto('a2a_push_configs').values(row).execute();
    return fromRow(row);
  }

  async list(accountId: string, taskId: string, db: Kysely<Database> | Tx = this.db): Promise<StoredPushConfig[]> {
    const rows = await db.selectFrom('a2a_push_configs').selectAll().where('account_id', '=', accountId).where('task_id', '=', taskId).orderBy('created_at').orderBy('id').execute();
    return rows.map(fromRow);
  }

  async get(accountId: string, taskId: string, id: string): Promise<StoredPushConfig | null> {
    const row = await this.db.selectFrom('a2a_push_configs').selectAll().where('account_id', '=', accountId).where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
    return row ? fromRow(row) : null;
  }

  /** True when there was one. */
  async delete(accountId: string, taskId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('a2a_push_configs').where('account_id', '=', accountId).where('task_id', '=', taskId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
