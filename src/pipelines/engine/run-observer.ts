// Other features following runs (agent delegation maps a run's events to its task's status): each
// observer sees every lifecycle event a run emits, in the transition's transaction, with what pipelines
// alone can compute (stage counts, the run's state), so no observer reads pipeline tables.
import type { Tx } from '../../core/db/handles.js';
import type { RunStatus } from '../../core/db/column-values.js';

export interface RunStageCounts {
  total: number;
  /** Stages in a final status (succeeded, failed, skipped, canceled). */
  finished: number;
  /** Names of the stages running or waiting for approval now, in definition order. */
  current: string[];
  /** Names of the stages waiting for approval now. */
  awaiting: string[];
}

/** A run state entry as observers see it (the state API's entry). */
export interface ObservedStateEntry {
  key: string;
  value: string;
  type: string;
  mime_type: string | null;
  size_bytes: number;
  created_at: string;
}

export interface ObservedRunEvent {
  runId: string;
  accountId: string;
  sessionId: string | null;
  /** The run's status once this event's transition is applied (as far as it was when the event was emitted). */
  runStatus: RunStatus;
  /** `pipeline.run.*` / `pipeline.stage.*`, as on the run's timeline. */
  type: string;
  stage: string | null;
  data: Record<string, unknown>;
  at: string;
  /** The run's stage counts now, read in the transition's transaction (only when asked: most observers skip most runs). */
  stages(): Promise<RunStageCounts>;
  /** The run's state entries, read in the transition's transaction. */
  state(): Promise<ObservedStateEntry[]>;
}

export interface RunObserver {
  /** Called inside the transition's transaction: a throw rolls the transition back. */
  observe(trx: Tx, event: ObservedRunEvent): Promise<void>;
}
