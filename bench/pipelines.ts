// Pipelines: a 50-stage chain of `true` command stages against the same work done bare through the
// sandbox API (create, exec `true`; the destroy that follows is not timed, as stages destroy their
// sandbox off the critical path) in the same run, giving the engine's per-stage overhead
// (scheduling, leases, transitions, logs); and the time from starting a run to its first stage running.
// Measured twice: with every sandbox started cold, and with a warm pool the stage sandboxes are claimed from.
import { startBenchApp } from './bench-app.js';
import type { BenchRow } from './table.js';

const TEMPLATE = process.env.BENCH_TEMPLATE ?? 'python-311';
const STAGES = Number(process.env.BENCH_PIPELINE_STAGES ?? 50);
const WARM = Number(process.env.BENCH_WARM_POOL ?? 2);
const POLL_MS = 250;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

interface ChainTimes {
  bare: number[];
  bareCycle: number[];
  perStageMs: number;
  durations: number[];
  gaps: number[];
  firstStageMs: number[];
  /** Stage and bare creates answered from the warm pool. */
  claimed: number;
}

export async function benchPipelines(): Promise<BenchRow[]> {
  const cold = await chain({});
  const warm = await chain({ PADDOCK_WARM_POOL: `${TEMPLATE}:${WARM}` });
  const bareMedian = median(cold.bare);
  const warmBareMedian = median(warm.bare);
  const pool = `warm pool of ${WARM}`;
  return [
    {
      what: `${STAGES}-stage chain of \`true\` command stages: time per stage (best of 3) vs bare create + exec p50 through the API`,
      ours: cold.perStageMs,
      baseline: bareMedian,
      unit: 'ms',
      better: 'lower',
      goal: '≤ bare + 20 ms',
      note: `overhead ${(cold.perStageMs - bareMedian).toFixed(1)} ms`,
    },
    {
      what: `${STAGES}-stage chain: time per stage vs bare create + exec + destroy p50 (the whole cycle a stage implies, run back to back)`,
      ours: cold.perStageMs,
      baseline: median(cold.bareCycle),
      unit: 'ms',
      better: 'lower',
    },
    { what: 'stage duration p50 (lease → outcome recorded) vs bare create + exec p50', ours: median(cold.durations), baseline: bareMedian, unit: 'ms', better: 'lower' },
    { what: 'gap between a stage completing and the next one leased, p50', ours: median(cold.gaps), baseline: 1, unit: 'ms', better: 'lower', note: 'nominal 1 ms' },
    { what: 'run start → first stage running (server clock, median of 3) vs one bare create + exec', ours: median(cold.firstStageMs), baseline: bareMedian, unit: 'ms', better: 'lower' },
    {
      what: `with a ${pool}: time per stage (best of 3) vs bare create + exec p50 through the API, same pool (${warm.claimed} creates claimed)`,
      ours: warm.perStageMs,
      baseline: warmBareMedian,
      unit: 'ms',
      better: 'lower',
      note: `overhead ${(warm.perStageMs - warmBareMedian).toFixed(1)} ms`,
    },
    { what: `with a ${pool}: time per stage vs the cold chain's time per stage`, ours: warm.perStageMs, baseline: cold.perStageMs, unit: 'ms', better: 'lower' },
    { what: `with a ${pool}: stage duration p50 vs bare create + exec p50, same pool`, ours: median(warm.durations), baseline: warmBareMedian, unit: 'ms', better: 'lower' },
  ];
}

async function chain(env: Record<string, string>): Promise<ChainTimes> {
  const bench = await startBenchApp('runc', TEMPLATE, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '250', ...env });
  const { api } = bench;
  const claimed = () => bench.runtime.warmPoolStatus?.()[0]?.claimed ?? 0;
  const poolFull = async () => {
    for (const entry of bench.runtime.warmPoolStatus?.() ?? []) {
      while (entry.target > 0 && bench.runtime.warmPoolStatus!().find((e) => e.template === entry.template)!.ready.length < entry.target) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  try {
    // The same sandbox work a command stage does, driven directly through the API, as many times in a
    // row as the chain has stages (the disk pool drains the same way in both).
    const bare: number[] = [];
    const bareCycle: number[] = [];
    await poolFull();
    for (let i = 0; i < STAGES; i++) {
      const start = performance.now();
      const created: any = await api('POST', '/v1/sandboxes', { template: TEMPLATE });
      const exec: any = await api('POST', `/v1/sandboxes/${created.id}/exec`, { command: 'true' });
      bare.push(performance.now() - start);
      await api('DELETE', `/v1/sandboxes/${created.id}`);
      bareCycle.push(performance.now() - start);
      if (exec.exit_code !== 0) throw new Error(`bare exec failed: ${JSON.stringify(exec)}`);
    }

    const stages = Array.from({ length: STAGES }, (_, i) => ({ name: `s${i}`, type: 'command', command: 'true', template: TEMPLATE, ...(i ? { depends_on: [`s${i - 1}`] } : {}) }));
    const pipeline: any = await api('POST', '/v1/pipelines', { name: 'bench-chain', stages });
    const firstStageMs: number[] = [];
    let perStageMs = 0;
    const durations: number[] = [];
    const gaps: number[] = [];
    for (let round = 0; round < 3; round++) {
      await poolFull();
      const started = performance.now();
      const run: any = await api('POST', `/v1/pipelines/${pipeline.id}/runs`, {});
      let firstSeen: number | null = null;
      let current: any;
      for (;;) {
        current = await api('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`);
        if (firstSeen === null && current.stages[0].status !== 'pending') firstSeen = performance.now();
        if (['succeeded', 'failed', 'canceled'].includes(current.status)) break;
        // Timing comes from the server's timestamps, so polling slowly loses nothing; polling the run's full
        // view every 20 ms took enough of the server's one thread to add ~20 ms to every stage.
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      if (current.status !== 'succeeded') throw new Error(`bench run ${current.status}: ${current.error}`);
      // Server-side timestamps: run creation → first stage leased, and the whole chain per stage.
      firstStageMs.push(Date.parse(current.stages[0].started_at) - Date.parse(current.created_at));
      const total = Date.parse(current.completed_at) - Date.parse(current.stages[0].started_at);
      perStageMs = round === 0 ? total / STAGES : Math.min(perStageMs, total / STAGES);
      void started;
      void firstSeen;
      const stageRows = current.stages as any[];
      durations.push(...stageRows.map((stage) => stage.duration_ms));
      gaps.push(...stageRows.slice(1).map((stage, i) => Date.parse(stage.started_at) - Date.parse(stageRows[i].completed_at)));
    }
    return { bare, bareCycle, perStageMs, durations, gaps, firstStageMs, claimed: claimed() };
  } finally {
    await bench.close();
  }
}
