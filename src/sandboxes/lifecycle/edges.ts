// The sandbox lifecycle's edge table: which event may move a sandbox from which status to which. An
// edge not in the table is refused with a 409 naming both statuses; nothing else writes a status.
import type { SandboxEventType } from '../../core/events/published.js';
import { Conflict } from '../../core/errors.js';
import type { ErrorCodeFor } from '../../core/error-codes.js';
import { LIVE_STATUSES, type SandboxStatus } from './contract.js';

/** Events that move a sandbox between statuses (a budget threshold changes none). */
export type EdgeEventType = Exclude<SandboxEventType, 'sandbox.budget_threshold'>;

export interface Edge {
  from: readonly SandboxStatus[];
  to: readonly SandboxStatus[];
  /** The 409 a refused edge answers (the API's existing codes where it had one). */
  refusal(from: SandboxStatus): { message: string; code: ErrorCodeFor<409> };
}

function generic(what: string) {
  return (from: SandboxStatus) => ({ message: `sandbox is ${from}; it cannot ${what}`, code: 'sandbox_state_conflict' as const });
}

export const EDGES: Readonly<Record<EdgeEventType, Edge>> = {
  // The runtime's sandbox is up (metering starts): running at once, or still creating while set-up steps run.
  'sandbox.created': { from: ['creating'], to: ['running', 'creating'], refusal: generic('be created again') },
  'sandbox.running': { from: ['creating'], to: ['running'], refusal: generic('finish set-up') },
  'sandbox.paused': { from: ['running'], to: ['paused'], refusal: (from) => ({ message: `sandbox is ${from}; only a running sandbox can be paused`, code: 'sandbox_not_running' }) },
  'sandbox.resumed': { from: ['paused'], to: ['running'], refusal: (from) => ({ message: `sandbox is ${from}; only a paused sandbox can be resumed`, code: 'sandbox_not_paused' }) },
  'sandbox.restoring': {
    from: ['running'],
    to: ['restoring'],
    refusal: (from) => ({ message: `sandbox is ${from}; a snapshot restores only into a running sandbox${from === 'paused' ? ' (resume it first)' : ''}`, code: 'sandbox_not_running' }),
  },
  'sandbox.restored': { from: ['restoring'], to: ['running'], refusal: generic('finish a restore it is not doing') },
  'sandbox.error': { from: LIVE_STATUSES, to: ['error'], refusal: generic('enter the error state') },
  'sandbox.destroyed': { from: [...LIVE_STATUSES, 'error'], to: ['destroyed'], refusal: generic('be destroyed again') },
};

/** Whether `type` may move a sandbox from `from` to `to`. */
export function isAllowed(type: EdgeEventType, from: SandboxStatus, to: SandboxStatus): boolean {
  const edge = EDGES[type];
  return edge.from.includes(from) && edge.to.includes(to);
}

/** Throws the edge's 409 unless `type` may move a sandbox from `from` to `to` (its first target by default). */
export function requireEdge(type: EdgeEventType, from: SandboxStatus, to: SandboxStatus = EDGES[type].to[0]): SandboxStatus {
  if (isAllowed(type, from, to)) return to;
  const edge = EDGES[type];
  if (!edge.to.includes(to)) throw new Conflict(`${type} cannot move a sandbox to ${to}`, 'sandbox_state_conflict');
  const { message, code } = edge.refusal(from);
  throw new LifecycleConflict(message, code, from);
}

/** A refused edge: the sandbox's status (`from`) does not allow the change. */
export class LifecycleConflict extends Conflict {
  constructor(
    message: string,
    code: ErrorCodeFor<409>,
    readonly from: SandboxStatus,
  ) {
    super(message, code);
  }
}
