// The examples in examples/ run as users run them (`tsx`, importing '@paddock/sdk' built to sdk/dist, with
// PADDOCK_URL / PADDOCK_API_KEY) against the real app with real sandboxes on runc, and print what they claim.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');

describe('the SDK examples on runc', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    // The examples import the built package, as users do: build it from the sources under test.
    await run(process.execPath, [path.resolve('node_modules/typescript/bin/tsc'), '-p', 'sdk/tsconfig.json']);
    t = await startApp('sqlite', { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' }, { runtime: 'runc' });
    key = (await t.signupOnPlan('enterprise')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function example(file: string, args: string[] = []): Promise<string> {
    const { stdout } = await run(TSX, [path.join('examples', file), ...args], {
      env: { ...process.env, PADDOCK_URL: t.url, PADDOCK_API_KEY: key },
      timeout: 240_000,
    });
    return stdout;
  }

  it('agent-loop runs each reply in a sandbox with streamed output and feeds the failure back for a fix', async () => {
    const output = await example('agent-loop.ts');
    expect(output).toMatch(/^sandbox sbx_\S+ is running$/m);
    expect(output).toContain('[step 1] wrote 8 numbers');
    expect(output).toMatch(/^\[step 2 stderr\] NameError: name 'statistics' is not defined$/m);
    expect(output).toContain('--- step 2: exit 1');
    expect(output).toContain('[step 3] mean 3.875');
    expect(output).toContain('[step 3] median 3.5');
    expect(output).toContain('[step 4] summary: the numbers are in /workspace/step-4.py');
    expect(output).toMatch(/agent loop done: 4 steps, 1 failed and fixed\s*$/);
    expect((await t.request('GET', '/v1/sandboxes', { token: key })).body.filter((s: { status: string }) => s.status !== 'destroyed')).toEqual([]);
  }, 240_000);

  it('pipeline-from-yaml creates the pipeline from examples/pipeline.yaml, shows the build logs, approves and succeeds', async () => {
    const output = await example('pipeline-from-yaml.ts');
    expect(output).toMatch(/^pipeline release-example-\S+ \(pip_\S+\), version 1, 4 stages$/m);
    expect(output).toContain('building 1.2.3');
    expect(output).toContain('app 1.2.3');
    expect(output).toContain('approved');
    for (const stage of ['build', 'test', 'approve', 'ship']) expect(output).toContain(`  ${stage}: succeeded`);
    expect(output).toMatch(/run succeeded\s*$/);
  }, 240_000);

  it('delegate-to-agent streams a task to completion with the answer its sandbox stage wrote', async () => {
    const output = await example('delegate-to-agent.ts', ['how far is the moon?']);
    expect(output).toMatch(/^delegating to answer-questions-\S+ \(\S+\): how far is the moon\?$/m);
    const statuses = [...output.matchAll(/^status: (\w+)/gm)].map((match) => match[1]);
    expect(statuses[0]).toBe('pending');
    expect(statuses).toContain('running');
    expect(statuses.at(-1)).toBe('completed');
    expect(output).toMatch(/^progress: \d+%/m);
    expect(output).toContain('complete: {"answer":"you asked: how far is the moon?","words":5}');
    expect(output).toMatch(/task completed, cost \$\d+\.\d{4}\s*$/);
  }, 240_000);
});
