// Shared set-up of the session tests. The sessions API only reads which sandboxes an account owns, so
// these tests write sandbox records straight into the real database instead of starting containers;
// test/sandboxes/session-recording.test.ts covers sessions fed by real sandboxes.
import { newId } from '../../src/core/ids.js';
import type { TestApp } from './app.js';

export async function seedSandbox(t: TestApp, accountId: string): Promise<string> {
  const id = newId('sbx');
  const now = new Date().toISOString();
  await t.storage.db
    .insertInto('sandboxes')
    .values({
      id,
      account_id: accountId,
      status: 'running',
      error: null,
      runtime: 'runc',
      template: 'minimal',
      cpus: 1,
      memory_mb: 256,
      disk_gb: 1,
      network_mode: 'none',
      allowlist: '[]',
      env: '{}',
      ip: null,
      repo: null,
      repo_branch: null,
      repo_commit: null,
      repo_subdir: null,
      budget: null,
      init_script: null,
      timeout: null,
      packages: '[]',
      agents: '[]',
      created_at: now,
      updated_at: now,
      last_activity_at: now,
      destroyed_at: null,
    })
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
