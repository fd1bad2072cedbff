// A StageContext for calling a stage executor directly, as the run engine would: the run's state is
// an in-memory map here (the engine's state store is not part of these tests), the log is collected.
import type { StageContext } from '../../src/pipelines/stages/contract.js';

export interface TestStageContext extends StageContext {
  stateEntries: Map<string, { value: string; type?: string }>;
  logged: { stream: 'stdout' | 'stderr'; text: string }[];
  controller: AbortController;
}

export function stageContext(accountId: string, stageName: string, config: Record<string, unknown>): TestStageContext {
  const stateEntries = new Map<string, { value: string; type?: string }>();
  const logged: { stream: 'stdout' | 'stderr'; text: string }[] = [];
  const controller = new AbortController();
  return {
    accountId,
    pipelineId: 'pip_test',
    runId: `run_${Math.random().toString(36).slice(2)}`,
    stageName,
    attempt: 1,
    config,
    template: 'minimal',
    env: {},
    signal: controller.signal,
    controller,
    stateEntries,
    logged,
    state: {
      get: async (key) => stateEntries.get(key)?.value ?? null,
      put: async (key, value, options) => void stateEntries.set(key, { value: typeof value === 'string' ? value : JSON.stringify(value), type: options?.type }),
    },
    log: (stream, text) => void logged.push({ stream, text }),
  };
}
