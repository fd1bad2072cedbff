// Shared set-up of the session tests. The sessions API only reads which sandboxes an account owns, so
// these tests write sandbox records straight into the real database instead of starting containers;
// test/sandboxes/session-recording.test.ts covers sessions fed by real sandboxes.
import { sandboxRecord } from './sandbox-record.js';
import type { TestApp } from './app.js';

export async function seedSandbox(t: TestApp, accountId: string): Promise<string> {
  // Only the columns of the first sandboxes migration: migration tests seed databases not yet upgraded.
  const {
    id,
    account_id,
    status,
    error,
    runtime,
    template,
    cpus,
    memory_mb,
    disk_gb,
    network_mode,
    allowlist,
    env,
    ip,
    repo,
    repo_branch,
    repo_commit,
    repo_subdir,
    budget,
    init_script,
    timeout,
    packages,
    agents,
    created_at,
    updated_at,
    last_activity_at,
    destroyed_at,
  } = sandboxRecord(accountId, { template: 'minimal' });
  const row = {
    id,
    account_id,
    status,
    error,
    runtime,
    template,
    cpus,
    memory_mb,
    disk_gb,
    network_mode,
    allowlist,
    env,
    ip,
    repo,
    repo_branch,
    repo_commit,
    repo_subdir,
    budget,
    init_script,
    timeout,
    packages,
    agents,
    created_at,
    updated_at,
    last_activity_at,
    destroyed_at,
  };
  await t.storage.db
    .insertInto('sandboxes')
    .values(row as never)
    .execute();
  return id;
}

/** An account with a full-scope key and one sandbox. */
export async function tenant(t: TestApp): Promise<{ key: string; accountId: string; sandboxId: string }> {
  const { key, account } = await t.signupOnPlan('enterprise');
  return { key, accountId: account.id, sandboxId: await seedSandbox(t, account.id) };
}

export function event(sandboxId: string, sessionId: string, type: string, payload: object = {}, extra: object = {}) {
  return { session_id: sessionId, sandbox_id: sandboxId, type, timestamp: new Date().toISOString(), payload, ...extra };
}

export async function ingest(t: TestApp, key: string, events: unknown[]) {
  return t.request('POST', '/v1/events/ingest', { token: key, body: { events } });
}
