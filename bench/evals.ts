// Evals and delegation: a scenario run through POST /v1/evals/scenarios/{id}/run (sandbox create, exec,
// destroy, scoring, the recorded result) against the same create, exec and delete through the sandbox
// API; and the a2a stage delegating a task to a local A2A agent against the A2A SDK's own client
// sending the same message — each pair measured in the same run.
import { Role, type Message } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';
import { createA2aStage } from '../src/pipelines/stages/a2a.js';
import { startTestAgent } from '../test/helpers/a2a-agent.js';
import { stageContext } from '../test/helpers/stage-context.js';
import { startBenchApp } from './bench-app.js';
import type { BenchRow } from './table.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const A2A_ROUNDS = Number(process.env.BENCH_A2A_ROUNDS ?? 200);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function benchScenarioRuns(): Promise<BenchRow> {
  const bench = await startBenchApp('runc', 'minimal');
  try {
    const { api } = bench;
    const scenario = await api('POST', '/v1/evals/scenarios', {
      name: 'bench',
      template: 'minimal',
      command: 'echo ok',
      checks: [
        { type: 'output_equals', value: 'ok' },
        { type: 'exit_code', equals: 0 },
      ],
    });
    const spec = { template: 'minimal', network_mode: 'none', cpus: 1, memory_mb: 512, disk_gb: 1 };
    const ours: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      let start = performance.now();
      const created = await api('POST', '/v1/sandboxes', spec);
      await api('POST', `/v1/sandboxes/${created.id}/exec`, { command: 'echo ok' });
      await api('DELETE', `/v1/sandboxes/${created.id}`);
      baseline.push(performance.now() - start);
      start = performance.now();
      const result = await api('POST', `/v1/evals/scenarios/${scenario.id}/run`);
      ours.push(performance.now() - start);
      if (result.status !== 'passed') throw new Error(`eval run did not pass: ${JSON.stringify(result)}`);
    }
    return {
      what: 'scenario run (create, exec, destroy, score, record) vs create + exec + delete via the sandbox API, runc',
      ours: median(ours),
      baseline: median(baseline),
      unit: 'ms',
      better: 'lower',
    };
  } finally {
    await bench.close();
  }
}

async function benchDelegation(): Promise<BenchRow> {
  const agent = await startTestAgent();
  try {
    const stage = createA2aStage({ policy: { allowPrivate: true, allowHttp: true } });
    const client = await new ClientFactory().createFromUrl(agent.url);
    const message = (): Message => ({
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: 'ping' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      metadata: { skill_id: 'echo' },
      extensions: [],
      referenceTaskIds: [],
    });
    const ours: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < A2A_ROUNDS; i++) {
      let start = performance.now();
      for await (const _event of client.sendMessageStream({ tenant: '', message: message(), configuration: undefined, metadata: undefined }));
      baseline.push(performance.now() - start);
      start = performance.now();
      const outcome = await stage(stageContext('acc_bench', 'delegate', { agent_url: agent.url, skill_id: 'echo', prompt: 'ping' }));
      ours.push(performance.now() - start);
      if (outcome.status !== 'succeeded') throw new Error(`a2a stage failed: ${outcome.error}`);
    }
    return {
      what: 'a2a stage (card, skill check, streamed task, output to state) vs the SDK client streaming the same message',
      ours: median(ours),
      baseline: median(baseline),
      unit: 'ms',
      better: 'lower',
      note: 'baseline reuses a resolved client',
    };
  } finally {
    await agent.close();
  }
}

export async function benchEvals(): Promise<BenchRow[]> {
  return [await benchDelegation(), await benchScenarioRuns()];
}
