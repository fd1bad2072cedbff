import { defineConfig } from 'vitest/config';

// Two projects: `api` runs two files at a time (Vitest's default on two cores would be one: its files
// mostly wait on servers, timers and PostgreSQL), or PADDOCK_TEST_API_WORKERS (scripts/test.sh runs it on
// one beside `runtime`); `runtime` holds every test that starts sandboxes or a host network and runs its
// files one at a time (they share the host's bridge, nftables and netns).
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

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'api', include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'dashboard/src/**/*.test.ts'], exclude: runtimeTests, maxWorkers: Number(process.env.PADDOCK_TEST_API_WORKERS ?? 2) },
      },
      { extends: true, test: { name: 'runtime', include: runtimeTests, fileParallelism: false } },
    ],
  },
});
