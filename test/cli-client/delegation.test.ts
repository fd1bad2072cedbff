// The client CLI's commands that need no sandbox, as people run them: the built `paddock` binary against a
// real server (no runtime), with the URL and key from the environment: a pipeline paused for approval and
// approved or rejected from the command line, and an A2A agent registered from a file, a task sent to it,
// watched to completion, listed and cancelled.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { clientCommands } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { ndjsonLines } from '../helpers/ndjson.js';

let t: TestApp;
let dir: string;
let env: Record<string, string | undefined>;
const { cli, json } = clientCommands(() => env);
const file = (name: string, content: object) => {
  const target = path.join(dir, name);
  fs.writeFileSync(target, JSON.stringify(content));
  return target;
};

const ASK = { name: 'ask', type: 'await_approval', config: { message: 'Ship it?', channels: ['dashboard'] } };
const CHECK = { name: 'check', type: 'gate', config: { expression: 'true' }, depends_on: ['ask'] };

beforeAll(async () => {
  t = await startApp('sqlite', { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' });
  const { key } = await t.signup();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-cli-delegation-'));
  env = { PADDOCK_URL: t.url, PADDOCK_API_KEY: key, PADDOCK_CONFIG: path.join(dir, 'none.json') };
});

afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('paddock pipeline approve / reject', () => {
  it('approves a run paused for approval, which then succeeds; rejects another, which is canceled', async () => {
    const pipeline = await json('pipeline', 'apply', '-f', file('release.json', { name: 'release', stages: [ASK, CHECK] }));
    expect(pipeline).toMatchObject({ name: 'release', version: 1 });

    const paused = await cli('pipeline', 'run', 'release', '--wait', '--json');
    expect(paused.code, 'a run waiting for an approval exits 3 (1 is a run that did not succeed)').toBe(3);
    const run = JSON.parse(paused.stdout);
    expect(run.status).toBe('paused');
    expect(paused.stderr).toContain(`run ${run.id} waits for approval of stage ask: paddock pipeline approve release ${run.id} (or reject)\n`);
    const approved = await json('pipeline', 'approve', 'release', run.id, '--comment', 'looks good');
    expect(approved.stage).toMatchObject({ name: 'ask', status: 'succeeded' });
    await waitFor('the approved run to succeed', async () => (await json('pipeline', 'runs', 'release')).find((listed: { id: string }) => listed.id === run.id)?.status === 'succeeded', 20_000, 200);

    const second = JSON.parse((await cli('pipeline', 'run', 'release', '--wait', '--json')).stdout);
    expect(second.status).toBe('paused');
    const rejected = await cli('pipeline', 'reject', 'release', second.id, '--comment', 'not today');
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toBe(`Rejected stage ask of ${second.id}\n`);
    await waitFor(
      'the rejected run to be canceled',
      async () => (await json('pipeline', 'runs', 'release')).find((listed: { id: string }) => listed.id === second.id)?.status === 'canceled',
      20_000,
      200,
    );

    const twice = await cli('pipeline', 'approve', 'release', second.id);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/^error: .+ \(\w+\)\n$/);
  });
});

describe('paddock agent / task', () => {
  it('registers an agent from a file, sends it a task and watches it complete, lists and cancels tasks, removes the agent', async () => {
    const pipeline = await json('pipeline', 'apply', '-f', file('answer.json', { name: 'answer', stages: [{ name: 'check', type: 'gate', config: { expression: 'true' } }] }));
    const skill = { id: 'echo', name: 'Echo', description: 'Answers its query.', tags: ['test'], input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } };
    const agent = await json('agent', 'create', '-f', file('agent.json', { name: 'echo-agent', description: 'A CLI test agent.', pipeline_id: pipeline.id, skills: [skill] }));
    expect(agent.id).toBeTruthy();
    expect((await json('agent', 'list')).map((listed: { id: string }) => listed.id)).toContain(agent.id);
    expect(await json('agent', 'get', agent.id)).toMatchObject({ id: agent.id, name: 'echo-agent' });
    const table = await cli('agent', 'list');
    expect(table.stdout).toMatch(new RegExp(`^ID +NAME .*\\n${agent.id} +echo-agent `, 's'));

    const watched = await cli('task', 'send', agent.id, 'echo', '--input', '{"query":"hi"}', '--watch', '--json');
    expect(watched.code, watched.stderr).toBe(0);
    const events = ndjsonLines(watched.stdout);
    expect(events.at(-1)).toMatchObject({ kind: 'complete', data: { status: 'completed' } });
    const [{ id: taskId }] = (await json('task', 'list', '--agent', agent.id)).tasks;
    expect(await json('task', 'get', taskId)).toMatchObject({ id: taskId, status: 'completed', agent_id: agent.id });

    const invalid = await cli('task', 'send', agent.id, 'echo', '--input', 'not json');
    expect(invalid.code).toBe(2);
    const refused = await cli('task', 'send', agent.id, 'echo', '--input', '{}');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .+ \(\w+\)\n$/);

    await t.request('PUT', `/v1/pipelines/${pipeline.id}`, { token: env.PADDOCK_API_KEY, body: { stages: [ASK] } });
    const pending = (await cli('task', 'send', agent.id, 'echo', '--input', '{"query":"later"}')).stdout.trim();
    expect(pending).toMatch(/^\S+$/);
    expect((await json('task', 'cancel', pending)).status).toBe('canceled');
    const listed = await json('task', 'list', '--agent', agent.id);
    expect(listed.tasks.map((task: { id: string; status: string }) => [task.id, task.status])).toEqual(
      expect.arrayContaining([
        [taskId, 'completed'],
        [pending, 'canceled'],
      ]),
    );
    expect((await cli('task', 'watch', pending)).code, 'a task that did not complete exits 1').toBe(1);

    expect((await cli('agent', 'rm', agent.id)).stdout).toBe(`Deleted ${agent.id}\n`);
    const gone = await cli('agent', 'get', agent.id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('(agent_not_found)');
  });
});
