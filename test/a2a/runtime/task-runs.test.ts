// Tasks whose pipeline runs command stages on real sandboxes (runc), on both databases: the agent's
// template replaces the pipeline's default, every stage sees the task in env A2A_*, and what a stage
// writes to run state becomes the task's output (task_output) and artifacts (file/artifact entries).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../../helpers/backends.js';
import { startApp, type TestApp } from '../../helpers/app.js';
import { createPipeline, registerAgent } from '../../helpers/a2a.js';
import { waitFor } from '../../helpers/wait-for.js';

// Python is only in the python-311 template; the pipeline's default (minimal) has none.
const WORK = `command -v python3 >/dev/null || { echo "no python in this template" >&2; exit 7; }
python3 - <<'PY'
import json, os, urllib.request
task = json.loads(os.environ['A2A_INPUT'])
def put(key, body):
    request = urllib.request.Request(os.environ['PADDOCK_STATE_URL'] + '/' + key, data=json.dumps(body).encode(), method='PUT',
        headers={'authorization': 'Bearer ' + os.environ['PADDOCK_STATE_TOKEN'], 'content-type': 'application/json'})
    urllib.request.urlopen(request).read()
def get(key):
    request = urllib.request.Request(os.environ['PADDOCK_STATE_URL'] + '/' + key, headers={'authorization': 'Bearer ' + os.environ['PADDOCK_STATE_TOKEN']})
    return json.loads(urllib.request.urlopen(request).read())['value']
put('report.md', {'value': '# Report for ' + task['query'], 'type': 'artifact', 'mime_type': 'text/markdown'})
put('task_output', {'value': {'answer': task['query'].upper(), 'task_id': os.environ['A2A_TASK_ID'], 'skill': os.environ['A2A_SKILL_ID'], 'from_state': json.loads(get('task_input'))}})
PY`;

describe.each(BACKENDS)('A2A tasks running command stages (runc) on %s', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' }, { runtime: 'runc' });
    key = (await t.signupOnPlan('enterprise')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("runs the pipeline on the agent's template with the task in env and state; output and artifacts come from run state", async () => {
    const pipeline = await createPipeline(t.url, key, { stages: [{ name: 'work', type: 'command', command: WORK }] });
    const agent = await registerAgent(t.url, key, { pipeline_id: pipeline.id, template: 'python-311' });
    const created = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: 'echo', input: { query: 'hello' } } });
    expect(created.status, created.text).toBe(201);
    const task = created.body;
    const done = await waitFor(
      'the task to end',
      async () => {
        const current = (await t.request('GET', `/v1/a2a/tasks/${task.id}`, { token: key })).body;
        if (!['completed', 'failed', 'canceled'].includes(current.status)) throw new Error(JSON.stringify(current));
        return current;
      },
      90_000,
      250,
    );
    if (done.status !== 'completed') {
      const logs = await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${task.run_id}/stages/work/logs`, { token: key });
      throw new Error(`the task ended ${done.status}: ${done.status_message}\n${JSON.stringify(logs.body)}`);
    }
    expect(done.output).toEqual({ answer: 'HELLO', task_id: task.id, skill: 'echo', from_state: { query: 'hello' } });
    expect(done.artifacts).toEqual([{ id: expect.stringMatching(/^art_/), name: 'report.md', mime_type: 'text/markdown', created_at: expect.any(String) }]);
    const content = await t.request('GET', `/v1/a2a/tasks/${task.id}/artifacts/${done.artifacts[0].id}`, { token: key });
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toContain('text/markdown');
    expect(content.text).toBe('# Report for hello');

    const events = (await t.request('GET', `/v1/a2a/tasks/${task.id}/events?limit=1000`, { token: key })).body.events;
    const artifact = events.find((event: any) => event.kind === 'artifact');
    expect(artifact.data).toEqual({ id: done.artifacts[0].id, name: 'report.md', mime_type: 'text/markdown' });
    expect(events.map((event: any) => event.kind).slice(-2)).toEqual(['status', 'complete']);
    expect(events.indexOf(artifact)).toBeLessThan(events.length - 2);
    // cost_usd is refreshed after each run event, the last one a moment after the task ended.
    const costed = await waitFor(
      'the task cost to include its stage sandbox',
      async () => {
        const current = (await t.request('GET', `/v1/a2a/tasks/${task.id}`, { token: key })).body;
        if (!(current.cost_usd > 0)) throw new Error(`cost_usd ${current.cost_usd}`);
        return current;
      },
      10_000,
      500,
    );
    expect(costed.cost_usd).toBeGreaterThan(0);

    // The same pipeline run directly uses its own default template, which has no python.
    const direct = await t.request('POST', `/v1/pipelines/${pipeline.id}/runs`, { token: key, body: {} });
    const failed = await waitFor(
      'the direct run to end',
      async () => {
        const run = (await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${direct.body.id}`, { token: key })).body;
        if (!['succeeded', 'failed'].includes(run.status)) throw new Error(run.status);
        return run;
      },
      90_000,
      250,
    );
    expect(failed.status).toBe('failed');
    expect(failed.stages[0].exit_code).toBe(7);
  });
});
