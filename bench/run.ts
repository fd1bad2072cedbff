// `npm run bench [-- names...]`: runs the benchmarks and prints their tables.
import { benchA2a } from './a2a.js';
import { benchApi } from './api.js';
import { benchBilling } from './billing.js';
import { benchBudgets } from './budgets.js';
import { benchCluster } from './cluster.js';
import { benchDashboard } from './dashboard.js';
import { benchEvals } from './evals.js';
import { benchIngest } from './ingest.js';
import { benchPipelines } from './pipelines.js';
import { benchPause } from './pause.js';
import { benchPreview } from './preview.js';
import { benchProcesses } from './processes.js';
import { benchRunSessions } from './run-sessions.js';
import { benchSandboxes } from './sandboxes.js';
import { benchScale } from './scale.js';
import { benchSdk } from './sdk.js';
import { benchTerminal } from './terminal.js';
import { printTable, type BenchRow } from './table.js';

const benches: Record<string, { title: string; run: () => Promise<BenchRow[]> }> = {
  api: { title: 'API: authenticated request vs hello route (same process, autocannon, 32 connections)', run: benchApi },
  runc: { title: 'Sandboxes on runc: through the API vs the bare runtime (same rootfs, same run)', run: () => benchSandboxes('runc') },
  terminal: { title: 'Terminal: keystroke echo through the WebSocket vs the PTY driven directly (runc, same sandbox, same run)', run: () => benchTerminal('runc') },
  gvisor: { title: 'Sandboxes on gVisor: through the API vs the bare runtime (same rootfs, same run)', run: () => benchSandboxes('gvisor') },
  sessions: { title: 'Session events: ingest through the API vs raw inserts, replay pages vs the raw SELECT (same run)', run: benchIngest },
  budgets: { title: 'Budgets: sweep pass vs its raw reads, and enforcement on runc vs the runtime destroy (same run)', run: benchBudgets },
  evals: { title: 'Evals and A2A delegation: scenario runs vs the sandbox API, the a2a stage vs the SDK client (same run)', run: benchEvals },
  pipelines: { title: 'Pipelines: engine overhead per command stage and time to first stage (runc, SQLite, same run)', run: benchPipelines },
  pause: { title: 'Pause/resume vs the raw runtime (freezer, gVisor checkpoint) and snapshots of a 100 MB workspace vs plain tar (same run)', run: benchPause },
  preview: { title: 'Preview proxy vs a direct connection to the sandbox, and port-scan CPU with idle sandboxes (runc, same run)', run: () => benchPreview('runc') },
  a2a: { title: 'Agent delegation: task create → stream events vs the same run started directly, and SSE fan-out (gate and await_approval stages, no runtime, SQLite, same run)', run: benchA2a },
  billing: {
    title: 'Billing: usage for an account with 10,000 metered intervals this period vs GET /v1/account, and the compute-quota admission check (no runtime, SQLite, same run)',
    run: benchBilling,
  },
  dashboard: {
    title:
      "Dashboard in Chromium: the first page's JavaScript and first paint against a minimal React page, and scrolling a 1,000-sandbox list and a 100,000-event replay against a plain table (runc, SQLite, same run)",
    run: benchDashboard,
  },
  processes: {
    title: 'Background processes: output written inside the sandbox → chunk at a following client (NDJSON) vs the same program through exec/stream (same sandbox, same run)',
    run: async () => [...(await benchProcesses('runc')), ...(await benchProcesses('gvisor'))],
  },
  sdk: { title: "SDK: sandbox.commands.run('true') vs a raw fetch of the same exec request (runc, same sandbox, same run)", run: benchSdk },
  scale: {
    title: 'Scale-out figures on one node with PostgreSQL: statements per create, exec, destroy and idle second, host memory per idle sandbox, creates per second (runc and gVisor, same run)',
    run: benchScale,
  },
  cluster: {
    title: 'Scale-out on one machine with PostgreSQL: exec forwarded by an api node vs straight to the worker, creates placed over 3 workers vs 1 (runc, same run)',
    run: benchCluster,
  },
  runsessions: { title: "Run sessions: a pipeline event recorded in the run's session vs the timeline row alone (same run)", run: benchRunSessions },
};

const selected = process.argv.slice(2).filter((name) => !name.startsWith('-'));
for (const name of selected.length ? selected : Object.keys(benches)) {
  const bench = benches[name];
  if (!bench) throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(benches).join(', ')}`);
  printTable(bench.title, await bench.run());
}
