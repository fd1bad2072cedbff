// `command` stages: a fresh sandbox per attempt (the run's repo cloned into /workspace when given),
// the command run through the shell with the run env overlaid by the stage env, the exit code kept,
// the sandbox destroyed whatever happened. Destruction runs after the outcome is known and off the
// stage's critical path (the next stage need not wait for a teardown); a server that dies before it
// finishes destroys such sandboxes when it starts again (PipelineWorker.destroyLeftoverSandboxes).
import type { Principal } from '../../core/access.js';
import { LimitExceeded } from '../../core/errors.js';
import type { SandboxService } from '../../sandboxes/service.js';
import type { StageContext, StageExecutor, StageOutcome } from './contract.js';

const OUTPUT_CAP_BYTES = 1024 * 1024;
const SETUP_POLL_MS = 100;
const PLAN_SLOT_POLL_MS = 250;

export interface CommandStageDependencies {
  sandboxes: SandboxService;
  principalFor(accountId: string): Promise<Principal>;
  /** Destroys a sandbox without making the caller wait (tracked, so shutdown waits for it). */
  destroyInBackground(accountId: string, sandboxId: string): void;
  /** Extra variables every stage command sees (the state gateway address and the run's token). */
  stateAccess?(context: StageContext): Promise<Record<string, string>>;
}

export function commandExecutor(deps: CommandStageDependencies): StageExecutor {
  return async (context) => {
    const command = context.config.command as string;
    const principal = await deps.principalFor(context.accountId);
    const env = { ...context.env, ...(await deps.stateAccess?.(context)) };
    let sandboxId: string | null = null;
    try {
      const row = await createWithinPlan(deps, context, principal, {
        template: context.template,
        env,
        ...(context.repo ? { repo: context.repo.url, ...(context.repo.branch ? { repo_branch: context.repo.branch } : {}) } : {}),
      });
      sandboxId = row.id;
      await context.sandboxCreated?.(row.id);
      const ready = await waitUntilRunning(deps.sandboxes, context, row.id);
      if (ready !== true) return ready;
      const result = await deps.sandboxes.run(context.accountId, row.id, {
        // The stage's own timeout (through `signal`) bounds the command; this is only a backstop.
        timeoutMs: 24 * 3_600_000,
        command,
        env,
        maxOutputBytes: OUTPUT_CAP_BYTES,
        signal: context.signal,
        onStdout: (chunk) => context.log('stdout', chunk.toString('utf8')),
        onStderr: (chunk) => context.log('stderr', chunk.toString('utf8')),
      });
      if (context.signal.aborted) return { status: 'failed', exit_code: result.exitCode, error: abortReason(context.signal) };
      return result.exitCode === 0 ? { status: 'succeeded', exit_code: 0 } : { status: 'failed', exit_code: result.exitCode, error: `command exited with ${result.exitCode}` };
    } catch (error) {
      if (context.signal.aborted) return { status: 'failed', error: abortReason(context.signal) };
      return { status: 'failed', error: (error as Error).message };
    } finally {
      if (sandboxId) deps.destroyInBackground(context.accountId, sandboxId);
    }
  };
}

/**
 * Creates the stage sandbox; while the plan's concurrent-sandbox limit is reached (parallel branches
 * on a small plan), waits for a slot instead of failing the attempt. The stage timeout still applies.
 */
async function createWithinPlan(deps: CommandStageDependencies, context: StageContext, principal: Principal, input: Record<string, unknown>) {
  let logged = false;
  for (;;) {
    try {
      return await deps.sandboxes.create(principal, input as never, { confidential: true });
    } catch (error) {
      if (!(error instanceof LimitExceeded) || context.signal.aborted) throw error;
      if (!logged) context.log('stderr', `[paddock] waiting for a sandbox slot: ${error.message}\n`);
      logged = true;
      await new Promise((resolve) => setTimeout(resolve, PLAN_SLOT_POLL_MS));
    }
  }
}

async function waitUntilRunning(sandboxes: SandboxService, context: StageContext, id: string): Promise<true | StageOutcome> {
  for (;;) {
    const row = await sandboxes.get(context.accountId, id);
    if (row.status === 'running') return true;
    if (row.status !== 'creating') return { status: 'failed', error: `the stage sandbox could not be set up: ${row.error ?? row.status}` };
    if (context.signal.aborted) return { status: 'failed', error: abortReason(context.signal) };
    await new Promise((resolve) => setTimeout(resolve, SETUP_POLL_MS));
  }
}

function abortReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'the attempt was stopped';
}
