// Creating a sandbox: the request checked (create-input.ts), admitted within the plan's concurrency
// limit, started by the runtime (from the warm pool when one fits), then its set-up steps in the
// background. The lifecycle records `sandbox.created` once it is up and `sandbox.running` after set-up.
import { admitOnNode } from './node-admission.js';
import type { Plan } from '../config.js';
import { scopeReadsSecrets, type Principal } from '../core/access.js';
import { Forbidden, Invalid, LimitExceeded } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/time.js';
import { TemplateNotReady } from '../runtime/errors.js';
import { findTemplate, howToMakeReady, templateLowerDirs } from '../runtime/templates/index.js';
import type { ExecResult, SandboxShape } from '../runtime/runtime.js';
import { DEFAULT_DISK_GB, effectiveAllowlist, effectiveSizing, validateCombination } from './create-input.js';
import { enterError, type SandboxContext } from './context.js';
import { admitSandbox } from './lifecycle/lifecycle.js';
import type { CreateSandboxInput } from './schemas.js';
import { setupSteps, type SetupStep } from './setup-steps.js';
import * as store from './store.js';

const ERROR_TAIL_CHARS = 2000;

/**
 * `confidential`: the creator (a pipeline stage, an eval run) puts data in the sandbox that only a
 * scope reading secrets may see, so narrower keys must not reach inside it.
 */
export async function createSandbox(ctx: SandboxContext, principal: Principal, input: CreateSandboxInput, options: { confidential?: boolean } = {}): Promise<store.SandboxRow> {
  const requestedMs = Date.now();
  if (input.secrets?.length && !scopeReadsSecrets(principal.scope)) {
    throw new Forbidden(`body.secrets needs a full-scope key: a ${principal.scope}-scope key cannot name account secrets, since any program in the sandbox can print their values`, 'scope_denied');
  }
  validateCombination(input, { allowPrivate: ctx.config.allowPrivateWebhooks, allowHttp: ctx.config.allowHttpWebhooks });
  await requireReadyTemplate(ctx, input.template);
  const secretEnv = await ctx.secrets.values(principal.accountId, input.secrets ?? []);
  const sizing = effectiveSizing(input);
  const shape: SandboxShape = {
    template: input.template,
    cpus: sizing.cpus,
    memoryMb: sizing.memoryMb,
    diskGb: input.disk_gb ?? DEFAULT_DISK_GB,
    networkMode: input.network_mode ?? 'full',
    allowlist: effectiveAllowlist(input),
  };
  // A pre-started sandbox that fits keeps its id (generated when the pool started it, so it sorts a little earlier).
  const warmId = ctx.runtime.reserveWarm?.(shape) ?? null;
  const row = newRow(ctx, principal, input, shape, warmId ?? newId('sbx'), options.confidential === true);
  try {
    await admitWithinPlan(ctx, principal.plan, row);
  } catch (error) {
    if (warmId) ctx.runtime.releaseWarm?.(warmId);
    throw error;
  }

  try {
    const info = await ctx.runtime.create({ id: row.id, ...shape, env: { ...input.env, ...secretEnv } });
    row.ip = info.ip;
  } catch (error) {
    await enterError(ctx, row.id, ['creating'], (error as Error).message);
    if (error instanceof TemplateNotReady) throw new Invalid('body.template', `${error.template} is not ready on this server: ${error.howToFix}`);
    throw error;
  }
  ctx.secrets.remember(row.id, Object.values(secretEnv));
  const steps = setupSteps(input, ctx.config.agentCatalog);
  const { row: created } = await ctx.lifecycle.transition(row.id, {
    type: 'sandbox.created',
    to: steps.length ? 'creating' : 'running',
    changes: { ip: row.ip },
    data: { template: row.template, runtime: row.runtime, warm: warmId !== null, setup_steps: steps.length, budget: row.budget, duration_ms: Date.now() - requestedMs },
  });
  if (steps.length) track(ctx, runSetup(ctx, row.id, steps, requestedMs));
  return created;
}

function newRow(ctx: SandboxContext, principal: Principal, input: CreateSandboxInput, shape: SandboxShape, id: string, confidential: boolean): store.SandboxRow & { status: 'creating' } {
  const now = nowIso();
  return {
    id,
    account_id: principal.accountId,
    status: 'creating',
    error: null,
    runtime: ctx.runtime.name,
    template: input.template,
    cpus: shape.cpus,
    memory_mb: shape.memoryMb,
    disk_gb: shape.diskGb,
    network_mode: shape.networkMode,
    allowlist: JSON.stringify(input.allowlist ?? []),
    env: JSON.stringify(input.env ?? {}),
    ip: null,
    repo: input.repo ?? null,
    repo_branch: input.repo_branch ?? null,
    repo_commit: input.repo_commit ?? null,
    repo_subdir: input.repo_subdir ?? null,
    budget: input.budget ?? null,
    init_script: input.init_script ?? null,
    timeout: input.timeout ?? null,
    packages: JSON.stringify(input.packages ?? []),
    agents: JSON.stringify(input.agents ?? []),
    created_at: now,
    updated_at: now,
    last_activity_at: now,
    destroyed_at: null,
    on_complete: input.on_complete ?? null,
    on_budget_exceeded: input.on_budget_exceeded ?? null,
    destroyed_reason: null,
    budget_alerts_raised: 0,
    completed_at: null,
    host_id: ctx.config.hostId,
    secrets: JSON.stringify(input.secrets ?? []),
    paused_at: null,
    confidential: confidential || input.secrets?.length ? 1 : 0,
  };
}

async function requireReadyTemplate(ctx: SandboxContext, name: string): Promise<void> {
  const template = findTemplate(name);
  if (template && !(await templateLowerDirs(ctx.config.dataDir, name))) {
    throw new Invalid('body.template', `${name} is not ready on this server: ${howToMakeReady(template)}`);
  }
}

async function admitWithinPlan(ctx: SandboxContext, plan: Plan, row: store.SandboxRow & { status: 'creating' }): Promise<void> {
  const refusal = await ctx.plans.refusal(row.account_id, plan);
  if (refusal) throw new LimitExceeded(refusal, 'plan_limit');
  const limit = ctx.plans.concurrentSandboxes(plan);
  await ctx.db.transaction().execute(async (trx) => {
    await ctx.accounts.lockForPlanCheck(trx, row.account_id);
    if (limit !== null && (await store.countLiveSandboxes(trx, row.account_id)) >= limit) {
      throw new LimitExceeded(`the ${plan} plan allows ${limit} concurrent sandboxes; destroy one or upgrade your plan`, 'plan_limit');
    }
    if (ctx.node) await admitOnNode(trx, ctx.node);
    await admitSandbox(trx, row);
  });
}

function track(ctx: SandboxContext, work: Promise<void>): void {
  ctx.background.add(work);
  work.finally(() => ctx.background.delete(work));
}

async function runSetup(ctx: SandboxContext, id: string, steps: readonly SetupStep[], requestedMs: number): Promise<void> {
  for (const step of steps) {
    let result: ExecResult;
    try {
      result = await ctx.runtime.exec(id, { command: step.command, env: step.env, timeoutMs: step.timeoutMs, maxOutputBytes: 64 * 1024 });
    } catch (error) {
      await failSetup(ctx, id, `${step.name} could not run: ${(error as Error).message}`);
      return;
    }
    if (result.exitCode !== 0) {
      const output = (result.stderr.length ? result.stderr : result.stdout).toString('utf8').trim();
      const why = result.timedOut ? 'timed out' : `exited with ${result.exitCode}`;
      await failSetup(ctx, id, `${step.name} ${why}${output ? `: ${tail(output)}` : ''}`);
      return;
    }
  }
  // Destroyed (or failed) during set-up: nothing to finish.
  await ctx.lifecycle.transitionIfAllowed(id, { type: 'sandbox.running', data: { duration_ms: Date.now() - requestedMs } });
}

async function failSetup(ctx: SandboxContext, id: string, message: string): Promise<void> {
  // The message ends with the step's output, which may print a secret: masked before it is stored,
  // logged, alerted or sent in the completion callback.
  const masked = ctx.secrets.maskInjected(id, message);
  ctx.log.warn({ sandbox_id: id, reason: masked }, 'sandbox set-up failed');
  await enterError(ctx, id, ['creating'], masked);
}

function tail(text: string): string {
  return text.length > ERROR_TAIL_CHARS ? `…${text.slice(-ERROR_TAIL_CHARS)}` : text;
}
