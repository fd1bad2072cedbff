// What the sandbox feature's parts share: the database, the runtime, the lifecycle (the one writer of
// status), the per-sandbox locks and what the server remembers about live sandboxes.
import type { NodeAdmission } from './node-admission.js';
import type { Kysely } from 'kysely';
import type { Config, Plan } from '../config.js';
import type { Database } from '../core/db/schema.js';
import { NotFound } from '../core/errors.js';
import { nowIso } from '../core/time.js';
import type { SandboxRuntime } from '../runtime/runtime.js';
import type { InjectedSecrets } from './injected-secrets.js';
import type { SandboxLifecycle } from './lifecycle/lifecycle.js';
import type { Logger } from '../core/logging.js';
import type { SandboxLocks } from './sandbox-locks.js';
import * as store from './store.js';

/** The accounts feature's lock for per-account limit checks (AccountService.lockForPlanCheck). */
export interface PlanLock {
  lockForPlanCheck(trx: Kysely<Database>, accountId: string): Promise<void>;
}

/** What the account's plan admits (billing): concurrent sandboxes, and whether its compute quota still allows starting compute. */
export interface PlanAdmission {
  concurrentSandboxes(plan: Plan): number | null;
  /** Why the account may not start compute now (its plan's compute hours are used up), or null. */
  refusal(accountId: string, plan: Plan): Promise<string | null>;
}

export interface SandboxContext {
  db: Kysely<Database>;
  runtime: SandboxRuntime;
  config: Config;
  log: Logger;
  lifecycle: SandboxLifecycle;
  /** Serializes pause, resume, snapshot copies and restores per sandbox. */
  locks: SandboxLocks;
  secrets: InjectedSecrets;
  accounts: PlanLock;
  plans: PlanAdmission;
  /** Sandboxes being torn down: their processes go away on purpose, which the crash check must not report. */
  ending: Set<string>;
  /** Set-up work running in the background, so shutdown and tests can wait for it. */
  background: Set<Promise<void>>;
  /** This node's own limit on live sandboxes (scale-out); null: none. */
  node: NodeAdmission | null;
}

export async function getSandbox(ctx: SandboxContext, accountId: string, id: string): Promise<store.SandboxRow> {
  const row = await store.findSandbox(ctx.db, accountId, id);
  if (!row) throw new NotFound('sandbox');
  return row;
}

export async function recordActivity(ctx: SandboxContext, id: string): Promise<void> {
  await store.updateSandbox(ctx.db, id, { last_activity_at: nowIso() });
}

/** Moves a sandbox to `error` if it is in one of `onlyFrom`; whether it did. */
export async function enterError(ctx: SandboxContext, id: string, onlyFrom: readonly store.SandboxRow['status'][], reason: string): Promise<boolean> {
  const committed = await ctx.lifecycle.transitionIfAllowed(id, { type: 'sandbox.error', onlyFrom, changes: { error: reason }, data: { reason } });
  return committed !== null;
}
