// The sandbox lifecycle's public shape: its statuses, the edges between them, and the typed events
// consumers (budgets, snapshots, terminals, ports, sessions, the warm pool, metrics, webhooks) react to.
// lifecycle/ is the only writer of sandbox status; everything else asks it for an edge.
export { SANDBOX_STATUSES, type SandboxStatus } from '../../core/db/column-values.js';
import type { SandboxStatus } from '../../core/db/column-values.js';
import type { SandboxEventType } from '../../core/events/published.js';

/** Statuses that hold resources and count against the plan's concurrency limit. */
export const LIVE_STATUSES = ['creating', 'running', 'paused', 'restoring'] as const satisfies readonly SandboxStatus[];

export type DestroyReason = 'deleted' | 'budget_exceeded';

/** One stored lifecycle event (a `sandbox_events` row), as GET /v1/sandboxes/{id}/events returns it and subscribers receive it. */
export interface SandboxEvent {
  id: string;
  type: SandboxEventType;
  sandboxId: string;
  accountId: string;
  /** ISO 8601, the time of the transaction that recorded it. */
  at: string;
  /** The status edge the event records; both null for events that change no status (budget thresholds). */
  from: SandboxStatus | null;
  to: SandboxStatus | null;
  /** Type-specific details: `reason` (error message, destroy reason, pause reason), `threshold`, `spend_usd`, `snapshot_id`, `warm`, `duration_ms`… */
  data: Record<string, unknown>;
}

/** A command that ran through exec (not stored as a lifecycle event: sessions record it). */
export interface ExecFinished {
  accountId: string;
  sandboxId: string;
  command: string;
  exitCode: number;
  durationMs: number;
  timedOut: boolean;
  /** What the exec API answered, secret values masked (sessions record it). */
  output: string;
  truncated: boolean;
  /** Set when the sandbox could not run the command. */
  error?: string;
}

/**
 * Reacts to committed lifecycle events in this process, after the transaction that recorded them.
 * A consumer's failure is logged, never undoes the edge, and never stops the other consumers.
 */
export interface LifecycleConsumer {
  readonly name: string;
  onEvent?(event: SandboxEvent): void | Promise<void>;
  onExec?(exec: ExecFinished): void | Promise<void>;
  /**
   * Called before a destroy kills the sandbox's processes (the `sandbox.destroyed` event follows once
   * the teardown committed): features holding live connections into it (terminals) close them with
   * their own reason first, instead of seeing the processes die.
   */
  beforeTeardown?(sandbox: { id: string; accountId: string }): void;
}
