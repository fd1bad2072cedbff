// Applies the migrations in ./migrations in order; the same set serves SQLite and PostgreSQL.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as foundation from './migrations/0001_foundation.js';
import * as sandboxes from './migrations/0002_sandboxes.js';
import * as ports from './migrations/0003_ports.js';
import * as sessions from './migrations/0004_sessions.js';
import * as alerts from './migrations/0005_alerts.js';
import * as snapshots from './migrations/0006_snapshots.js';
import * as metering from './migrations/0007_metering.js';
import * as pipelines from './migrations/0008_pipelines.js';
import * as evals from './migrations/0009_evals.js';
import * as sandboxHosts from './migrations/0010_sandbox_hosts.js';
import * as runSessions from './migrations/0011_run_sessions.js';
import * as idempotency from './migrations/0012_idempotency.js';
import * as confidentialSandboxes from './migrations/0013_confidential_sandboxes.js';
import * as sandboxEvents from './migrations/0014_sandbox_events.js';
import * as webhookEndpoints from './migrations/0015_webhook_endpoints.js';
import * as a2a from './migrations/0016_a2a.js';
import * as a2aTasks from './migrations/0017_a2a_tasks.js';
import * as billing from './migrations/0018_billing.js';
import * as billingQuota from './migrations/0019_billing_quota.js';
import * as billingProviderEvents from './migrations/0020_billing_provider_events.js';
import * as nodes from './migrations/0021_nodes.js';

const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_sandboxes': sandboxes,
  '0003_ports': ports,
  '0004_sessions': sessions,
  '0005_alerts': alerts,
  '0006_snapshots': snapshots,
  '0007_metering': metering,
  '0008_pipelines': pipelines,
  '0009_evals': evals,
  '0010_sandbox_hosts': sandboxHosts,
  '0011_run_sessions': runSessions,
  '0012_idempotency': idempotency,
  '0013_confidential_sandboxes': confidentialSandboxes,
  '0014_sandbox_events': sandboxEvents,
  '0015_webhook_endpoints': webhookEndpoints,
  '0016_a2a': a2a,
  '0017_a2a_tasks': a2aTasks,
  '0018_billing': billing,
  '0019_billing_quota': billingQuota,
  '0020_billing_provider_events': billingProviderEvents,
  '0021_nodes': nodes,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  return migrateTo(db, null);
}

/** Applies migrations up to and including `last` (all when null); upgrade tests start from an older schema. */
export async function migrateTo(db: Kysely<any>, last: string | null): Promise<string[]> {
  const migrator = new Migrator({ db, provider, migrationTableName: 'paddock_migrations', migrationLockTableName: 'paddock_migrations_lock' });
  const { error, results } = last === null ? await migrator.migrateToLatest() : await migrator.migrateTo(last);
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
