// Pause and resume through the API against the raw runtime measured in the same run: the freezer
// (`runc pause`/`resume`, `runsc pause`/`resume` on the same container) and gVisor's memory checkpoint
// (`runsc checkpoint`/`restore` of a twin sandbox made by the same API); and snapshot create/restore of a
// 100 MB workspace against plain tar of the same files. BENCH_PAUSE_PARTS picks parts (default all):
// freezer-runc, freezer-gvisor, checkpoint, snapshots.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sandboxPaths } from '../src/runtime/paths.js';
import type { RuntimeName } from '../src/runtime/runtime.js';
import { startBenchApp, type BenchApp } from './bench-app.js';
import { checkpointTwin, containerGone } from './checkpoint-twin.js';
import { TimedClient } from './timed-client.js';
import type { BenchRow } from './table.js';

const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_PAUSE_ROUNDS ?? 10);
const TEMPLATE = 'python-311';
// Its own host network, so it can run beside the other benchmarks.
const NETWORK = { bridgeName: 'pdkbsnapbr', subnet: '10.227.0.0/16', tableName: 'paddock_bsnap', interfacePrefix: 'pbs', netnsPrefix: 'pdkbsnap-' };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

interface Samples {
  pause: number[];
  resume: number[];
  rawPause: number[];
  rawResume: number[];
}

/**
 * Rounds alternate ours and the raw commands, so a load that changes during the run (the machine is
 * shared) weighs on both alike. Ours is timed by a client in its own process; between pause and resume,
 * untimed, the automatic snapshot's copy and whatever `settle` waits for (the raw commands do the same
 * work untimed between them).
 */
async function alternate(bench: BenchApp, id: string, raw: { pause(): Promise<number>; resume(): Promise<number> }, settle: () => Promise<void> = async () => {}): Promise<Samples> {
  const client = new TimedClient(bench.base, bench.apiKey);
  const samples: Samples = { pause: [], resume: [], rawPause: [], rawResume: [] };
  const call = async (route: string, status: string) => {
    const answer = await client.request('POST', route);
    if (answer.body?.status !== status) throw new Error(`${route} answered ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.ms;
  };
  try {
    for (let i = 0; i < ROUNDS; i++) {
      samples.pause.push(await call(`/v1/sandboxes/${id}/pause`, 'paused'));
      await bench.services.snapshots!.settled();
      await settle();
      samples.resume.push(await call(`/v1/sandboxes/${id}/resume`, 'running'));
      samples.rawPause.push(await raw.pause());
      samples.rawResume.push(await raw.resume());
    }
  } finally {
    client.close();
  }
  return samples;
}

async function freezerRows(runtimeName: RuntimeName): Promise<BenchRow[]> {
  const bench = await startBenchApp(runtimeName, TEMPLATE, {}, NETWORK);
  const binary = runtimeName === 'gvisor' ? 'runsc' : 'runc';
  try {
    // `full` network: on gVisor only sandboxes without a network are checkpointed, so this is the freezer path.
    const sandbox = await bench.api('POST', '/v1/sandboxes', { template: TEMPLATE, network_mode: 'full', cpus: 1, memory_mb: 256, disk_gb: 1 });
    progress(`freezer on ${runtimeName}`);
    const root = path.join(bench.dataDir, 'runtime', binary);
    const samples = await alternate(bench, sandbox.id, {
      pause: () => timed(() => run(binary, ['--root', root, 'pause', sandbox.id])),
      resume: () => timed(() => run(binary, ['--root', root, 'resume', sandbox.id])),
    });
    const freezer = runtimeName === 'gvisor' ? '`runsc pause` + cgroup freezer' : 'cgroup freezer';
    return [
      {
        what: `pause (${runtimeName}, ${freezer}) via API vs raw \`${binary} pause\` on the same container`,
        ours: median(samples.pause),
        baseline: median(samples.rawPause),
        unit: 'ms',
        better: 'lower',
        goal: '≤ 1.5×',
      },
      {
        what: `resume (${runtimeName}, ${freezer}) via API vs raw \`${binary} resume\``,
        ours: median(samples.resume),
        baseline: median(samples.rawResume),
        unit: 'ms',
        better: 'lower',
        goal: '≤ 1.5×',
      },
    ];
  } finally {
    await destroyAll(bench);
    await bench.close();
  }
}

async function checkpointRows(): Promise<BenchRow[]> {
  const bench = await startBenchApp('gvisor', TEMPLATE, {}, NETWORK);
  try {
    const body = { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 };
    const sandbox = await bench.api('POST', '/v1/sandboxes', body);
    const twin = await bench.api('POST', '/v1/sandboxes', body);
    progress('checkpoint on gvisor');
    const raw = await checkpointTwin(bench, twin.id);
    // Raw rounds restore the twin and checkpoint it again; one restore first so each round pauses a running twin.
    await raw.restore();
    let rawRestore = 0;
    // runsc removes a checkpointed container only once the host has reaped its process; the raw side waits
    // for that (`runsc delete`) untimed between checkpoint and restore, and so does ours.
    const samples = await alternate(
      bench,
      sandbox.id,
      {
        pause: async () => {
          const checkpointMs = await raw.checkpoint();
          rawRestore = await raw.restore();
          return checkpointMs;
        },
        resume: async () => rawRestore,
      },
      () => containerGone(bench.dataDir, sandbox.id),
    );
    await raw.checkpoint();
    if (!fs.existsSync(sandboxPaths(bench.dataDir, sandbox.id).bundleDir)) throw new Error('sandbox vanished');
    return [
      {
        what: 'pause (gvisor, network none: memory checkpoint) via API vs raw `runsc checkpoint` of a twin sandbox',
        ours: median(samples.pause),
        baseline: median(samples.rawPause),
        unit: 'ms',
        better: 'lower',
        goal: '≤ 1.5×',
      },
      {
        what: 'resume (gvisor, network none: restore) via API vs raw `runsc restore` of the twin',
        ours: median(samples.resume),
        baseline: median(samples.rawResume),
        unit: 'ms',
        better: 'lower',
        goal: '≤ 1.5×',
      },
    ];
  } finally {
    await destroyAll(bench);
    await bench.close();
  }
}

async function snapshotRows(runtimeName: RuntimeName): Promise<BenchRow[]> {
  const bench = await startBenchApp(runtimeName, TEMPLATE, {}, NETWORK);
  try {
    const sandbox = await bench.api('POST', '/v1/sandboxes', { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 512, disk_gb: 2 });
    const filled = await bench.api('POST', `/v1/sandboxes/${sandbox.id}/exec`, {
      command: 'head -c 50000000 /dev/urandom > /workspace/random.bin && head -c 50000000 /dev/zero > /workspace/zeros.bin && sync',
    });
    if (filled.exit_code !== 0) throw new Error(`filling the workspace failed: ${filled.output}`);
    const create: number[] = [];
    const restore: number[] = [];
    const rawTar: number[] = [];
    const rawUntar: number[] = [];
    const upper = sandboxPaths(bench.dataDir, sandbox.id).upperDir;
    const scratch = fs.mkdtempSync(path.join(bench.dataDir, 'raw-'));
    for (let i = 0; i < 3; i++) {
      let snapshotId = '';
      create.push(
        await timed(async () => {
          const body = await bench.api('POST', `/v1/sandboxes/${sandbox.id}/snapshots`, { name: `bench ${i}` });
          if (body.status !== 'completed') throw new Error(`snapshot answered ${JSON.stringify(body)}`);
          snapshotId = body.id;
        }),
      );
      restore.push(
        await timed(async () => {
          const body = await bench.api('POST', `/v1/snapshots/${snapshotId}/restore`, { sandbox_id: sandbox.id });
          if (body.status !== 'running') throw new Error(`restore answered ${JSON.stringify(body)}`);
        }),
      );
      await bench.api('DELETE', `/v1/snapshots/${snapshotId}`);
      const archive = path.join(scratch, 'raw.tar.gz');
      rawTar.push(await timed(() => run('sh', ['-c', 'tar -C "$1" -cf - . | gzip -1 > "$2"', 'tar', upper, archive])));
      const target = path.join(scratch, 'x');
      fs.rmSync(target, { recursive: true, force: true });
      fs.mkdirSync(target);
      rawUntar.push(await timed(() => run('tar', ['-xzf', archive, '-C', target])));
    }
    fs.rmSync(scratch, { recursive: true, force: true });
    return [
      {
        what: `snapshot create, 100 MB workspace (${runtimeName}) via API vs raw \`tar | gzip -1\` of the same upper dir`,
        ours: median(create),
        baseline: median(rawTar),
        unit: 'ms',
        better: 'lower',
      },
      {
        what: `snapshot restore, 100 MB workspace (${runtimeName}, includes restarting the sandbox) via API vs raw \`tar -xzf\``,
        ours: median(restore),
        baseline: median(rawUntar),
        unit: 'ms',
        better: 'lower',
      },
    ];
  } finally {
    await destroyAll(bench);
    await bench.close();
  }
}

async function destroyAll(bench: BenchApp): Promise<void> {
  for (const sandbox of await bench.api('GET', '/v1/sandboxes')) await bench.api('DELETE', `/v1/sandboxes/${sandbox.id}`);
}

const progress = (what: string) => process.stderr.write(`pause bench: ${what}\n`);

const PARTS: Record<string, () => Promise<BenchRow[]>> = {
  'freezer-runc': () => freezerRows('runc'),
  'freezer-gvisor': () => freezerRows('gvisor'),
  checkpoint: checkpointRows,
  snapshots: async () => [...(await snapshotRows('runc')), ...(await snapshotRows('gvisor'))],
};

export async function benchPause(): Promise<BenchRow[]> {
  const parts = (process.env.BENCH_PAUSE_PARTS ?? Object.keys(PARTS).join(','))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const unknown = parts.filter((part) => !PARTS[part]);
  if (unknown.length) throw new Error(`BENCH_PAUSE_PARTS: unknown part ${unknown.join(', ')}; known: ${Object.keys(PARTS).join(', ')}`);
  progress(parts.join(', '));
  const rows: BenchRow[] = [];
  for (const part of parts) rows.push(...(await PARTS[part]()));
  return rows;
}
