// Helpers shared by the pipeline tests: create a pipeline, start a run, wait for a run to settle.
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { waitFor } from './wait-for.js';

export async function createPipeline(t: TestApp, key: string, body: Record<string, unknown>) {
  const reply = await t.request('POST', '/v1/pipelines', { token: key, body: { name: `p-${Math.random().toString(36).slice(2)}`, ...body } });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

export async function startRun(t: TestApp, key: string, pipelineId: string, body: Record<string, unknown> = {}) {
  const reply = await t.request('POST', `/v1/pipelines/${pipelineId}/runs`, { token: key, body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

export async function getRun(t: TestApp, key: string, pipelineId: string, runId: string) {
  const reply = await t.request('GET', `/v1/pipelines/${pipelineId}/runs/${runId}`, { token: key });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Polls the run until `done(run)` holds; fails with the last run seen after `timeoutMs`. */
export async function waitForRun(
  t: TestApp,
  key: string,
  pipelineId: string,
  runId: string,
  done: (run: any) => boolean = (run) => ['succeeded', 'failed', 'canceled'].includes(run.status),
  timeoutMs = 60_000,
) {
  return waitFor(
    `run ${runId} to reach the expected state`,
    async () => {
      const run = await getRun(t, key, pipelineId, runId);
      if (!done(run)) throw new Error(`the run is ${JSON.stringify(run, null, 1)}`);
      return run;
    },
    timeoutMs,
    100,
  );
}

export const stageOf = (run: any, name: string) => run.stages.find((stage: any) => stage.name === name);

export async function timeline(t: TestApp, key: string, pipelineId: string, runId: string) {
  const reply = await t.request('GET', `/v1/pipelines/${pipelineId}/runs/${runId}/events?limit=1000`, { token: key });
  expect(reply.status).toBe(200);
  return reply.body.events as { sequence: number; type: string; stage: string | null; data: any }[];
}
