// Shared set-up of the session tests. The sessions API only reads which sandboxes an account owns, so
// these tests write sandbox records straight into the real database instead of starting containers;
// test/sandboxes/session-recording.test.ts covers sessions fed by real sandboxes.
import { sandboxRecord } from './sandbox-record.js';
import type { TestApp } from './app.js';

export async function seedSandbox(t: TestApp, accountId: string): Promise<string> {
  // Only the columns of the first sandboxes migration: migration tests seed databases not yet upgraded.
  const { on_complete, on_budget_exceeded, destroyed_reason, budget_alerts_raised, completed_at, host_id, secrets, paused_at, confidential, ...row } = sandboxRecord(accountId, {
    template: 'minimal',
  });
  await t.storage.db
    .insertInto('sandboxes')
    .values(row as never)
    .execute();
  return row.id;
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
