// Which executor runs an attempt of each stage type. `await_approval` is not here: a stage waiting for
// a person holds no worker and no sandbox, so the engine pauses the run itself (engine/transitions.ts).
// The lead registers `eval` and `a2a` here when their branch merges (see buildStageExecutors).
import type { StageExecutor, StageType } from './contract.js';

export type StageExecutors = Partial<Record<StageType, StageExecutor>>;

export function executorFor(executors: StageExecutors, type: StageType): StageExecutor {
  const executor = executors[type];
  if (executor) return executor;
  return async () => ({ status: 'failed', error: `stage type ${type} cannot run on this server: no executor is registered for it` });
}
