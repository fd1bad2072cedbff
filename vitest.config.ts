import { defineConfig } from 'vitest/config';

// Four projects. `api` runs two files at a time (Vitest's default on two cores would be one: its files
// mostly wait on servers, timers and PostgreSQL), or PADDOCK_TEST_API_WORKERS (scripts/test.sh runs it on
// one). The files that start sandboxes or a host network are split in two, each run one file at a time:
// `runtime` holds those that use what the host has once (the default sandbox network, the outside world
// of test/helpers/world.ts, the three-node namespaces, runtimes made directly, `paddock serve` children);
// `runtime-apart` holds those whose servers all come from test/helpers/app.ts, and gives them network
// profiles of their own (PADDOCK_TEST_NETWORK_BASE + 10), so the two can run at the same time; and
// `runtime-beside`, a few `runtime-apart` files on profiles further apart (+ 40), for the other lane.
const runtimeTests = [
  'test/runtime/**/*.test.ts',
  'test/sandboxes/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/pipelines/runtime/**/*.test.ts',
  'test/a2a/runtime/**/*.test.ts',
  'test/billing/runtime/**/*.test.ts',
  'test/dashboard/runtime/**/*.test.ts',
  'test/pipelines/eval-stage.test.ts',
  'test/core/fuzz-routes.test.ts',
  'test/core/scope-table.test.ts',
  'test/secrets/secret-scopes.test.ts',
  'test/sdk/runtime/**/*.test.ts',
  'test/processes/**/*.test.ts',
  'test/cluster/runtime/**/*.test.ts',
  'test/nodes/runtime/**/*.test.ts',
];

/** Runtime files whose every server is a test/helpers/app.ts app: nothing in them depends on the network base. */
const apartTests = [
  'test/a2a/runtime/protocol-delegation.test.ts',
  'test/a2a/runtime/task-runs.test.ts',
  'test/billing/runtime/quota-pause.test.ts',
  'test/dashboard/runtime/tools.test.ts',
  'test/dashboard/runtime/sandboxes.test.ts',
  'test/pipelines/runtime/command-stages.test.ts',
  'test/pipelines/eval-stage.test.ts',
  'test/core/fuzz-routes.test.ts',
  'test/core/scope-table.test.ts',
  'test/secrets/secret-scopes.test.ts',
  'test/sdk/runtime/**/*.test.ts',
  'test/processes/processes.test.ts',
  ...[
    'batch-fields',
    'budgets',
    'error-codes',
    'files-content-types',
    'idempotent-create',
    'lifecycle-edges',
    'lifecycle-events',
    'lifecycle-metrics',
    'pause',
    'ports',
    'preview',
    'preview-relay',
    'sandbox-error-alert',
    'sandbox-metrics',
    'sandbox-webhooks',
    'sandboxes',
    'session-recording',
    'shared-database',
    'snapshot-limits',
    'snapshots',
    'terminal',
    'validation',
    'warm-pool',
  ].map((name) => `test/sandboxes/${name}.test.ts`),
];

/**
 * `runtime-apart` files that scripts/test.sh runs in its other lane, after `api`, so both lanes end near
 * the same time (about 150 s of the runtime lane's 1700); network profiles of their own (base + 40).
 */
const besideTests = ['test/sandboxes/pause.test.ts', 'test/sandboxes/ports.test.ts'];

const networkBase = Number(process.env.PADDOCK_TEST_NETWORK_BASE ?? 0);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // expect.poll's own default (1 s) is shorter than a page's first load on a busy 2-core CI machine.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'api', include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'dashboard/src/**/*.test.ts'], exclude: runtimeTests, maxWorkers: Number(process.env.PADDOCK_TEST_API_WORKERS ?? 2) },
      },
      { extends: true, test: { name: 'runtime', include: runtimeTests, exclude: apartTests, fileParallelism: false } },
      {
        extends: true,
        test: { name: 'runtime-apart', include: apartTests, exclude: besideTests, fileParallelism: false, env: { PADDOCK_TEST_NETWORK_BASE: String(networkBase + 10) } },
      },
      {
        extends: true,
        test: { name: 'runtime-beside', include: besideTests, fileParallelism: false, env: { PADDOCK_TEST_NETWORK_BASE: String(networkBase + 40) } },
      },
    ],
  },
});
