// Delegation between agents on one Paddock, with runc: a pipeline's `a2a` stage, given the `url` from
// an agent's card and an account secret holding an API key (`auth_secret`), delegates to that agent;
// the agent's pipeline runs a command stage that reads the task input and writes `task_output`; the
// stage succeeds with that output in its run's state. Also: the A2A task carries the output as an
// artifact, and a missing auth secret fails the stage naming it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { startApp, type TestApp } from '../../helpers/app.js';
import { createPipeline, registerAgent } from '../../helpers/a2a.js';
import { sendRequest, textMessage, v1Client } from '../../helpers/a2a-protocol.js';
import { startRun, stageOf, waitForRun } from '../../helpers/pipelines.js';

const SKILL = { id: 'shout', name: 'Shout', description: 'Upper-cases its text.', tags: [], input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };

// Reads the task input from the run state and writes the answer to task_output, over the state gateway.
const SHOUT = [
  'import json, os, urllib.request',
  'url, token = os.environ["PADDOCK_STATE_URL"], os.environ["PADDOCK_STATE_TOKEN"]',
  'def call(method, key, body=None):',
  '    request = urllib.request.Request(url + "/" + key, method=method, data=None if body is None else json.dumps(body).encode(), headers={"authorization": "Bearer " + token, "content-type": "application/json"})',
  '    return json.loads(urllib.request.urlopen(request).read() or b"null")',
  'entry = call("GET", "task_input")',
  'task_input = entry["value"] if isinstance(entry["value"], dict) else json.loads(entry["value"])',
  'call("PUT", "task_output", {"value": {"shouted": task_input["text"].upper()}, "type": "json"})',
].join('\n');

describe('A2A delegation within one Paddock (runc)', () => {
  let t: TestApp;
  let key: string;
  let agent: any;
  let cardUrl: string;

  beforeAll(async () => {
    t = await startApp('sqlite', { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50', PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true', PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true' }, { runtime: 'runc' });
    key = (await t.signupOnPlan('enterprise')).key;
    const pipeline = await createPipeline(t.url, key, { stages: [{ name: 'shout', type: 'command', template: 'python-311', command: `python3 -c '${SHOUT.replaceAll("'", "'\\''")}'` }] });
    agent = await registerAgent(t.url, key, { pipeline_id: pipeline.id, skills: [SKILL], public: true });
    cardUrl = (await t.request('GET', `/.well-known/agent/${agent.id}.json`)).body.url;
    expect(cardUrl).toBe(`${t.url}/a2a/${agent.id}`);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers SendMessage with the completed task and its output as an artifact', async () => {
    const client = await v1Client(cardUrl, key);
    const task = (await client.sendMessage(sendRequest(textMessage('quiet words')))) as Task;
    expect(task.status?.state, JSON.stringify(task.status)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]).toMatchObject({ artifactId: 'output', parts: [{ content: { $case: 'data', value: { shouted: 'QUIET WORDS' } } }] });
  }, 120_000);

  it("lets a pipeline's a2a stage delegate by the card's url, authenticated with an account secret", async () => {
    expect((await t.request('PUT', '/v1/secrets/PADDOCK_AGENT_KEY', { token: key, body: { value: key } })).status).toBe(201);
    const caller = await createPipeline(t.url, key, {
      stages: [{ name: 'delegate', type: 'a2a', config: { agent_url: cardUrl, skill_id: 'shout', prompt: 'hello from a stage', auth_secret: 'PADDOCK_AGENT_KEY' } }],
    });
    const run = await startRun(t, key, caller.id);
    const done = await waitForRun(t, key, caller.id, run.id);
    expect(stageOf(done, 'delegate'), JSON.stringify(stageOf(done, 'delegate'))).toMatchObject({ status: 'succeeded' });
    const state = await t.request('GET', `/v1/pipelines/${caller.id}/runs/${run.id}/state/delegate_output`, { token: key });
    expect(state.status, state.text).toBe(200);
    const output = typeof state.body.value === 'string' ? JSON.parse(state.body.value) : state.body.value;
    expect(output).toMatchObject({ agent_url: cardUrl, state: 'completed', data: [{ shouted: 'HELLO FROM A STAGE' }] });
    const delegated = await t.request('GET', `/v1/a2a/tasks/${output.task_id}`, { token: key });
    expect(delegated.body).toMatchObject({ agent_id: agent.id, status: 'completed', input: { text: 'hello from a stage' }, output: { shouted: 'HELLO FROM A STAGE' } });
  }, 180_000);

  it('fails the stage naming the secret when it was deleted after the save, and the endpoint refuses the unauthenticated stage', async () => {
    expect((await t.request('PUT', '/v1/secrets/GONE_SOON', { token: key, body: { value: key } })).status).toBe(201);
    const missing = await createPipeline(t.url, key, {
      stages: [{ name: 'delegate', type: 'a2a', config: { agent_url: cardUrl, skill_id: 'shout', prompt: 'x', auth_secret: 'GONE_SOON' } }],
    });
    expect((await t.request('DELETE', '/v1/secrets/GONE_SOON', { token: key })).status).toBe(204);
    const run = await waitForRun(t, key, missing.id, (await startRun(t, key, missing.id)).id);
    expect(stageOf(run, 'delegate').error).toMatch(/auth_secret.*GONE_SOON/);

    const anonymous = await createPipeline(t.url, key, { stages: [{ name: 'delegate', type: 'a2a', config: { agent_url: cardUrl, skill_id: 'shout', prompt: 'x' } }] });
    const refused = await waitForRun(t, key, anonymous.id, (await startRun(t, key, anonymous.id)).id);
    expect(stageOf(refused, 'delegate').status).toBe('failed');
    expect(stageOf(refused, 'delegate').error).toMatch(/failed to answer: missing API key/);
  }, 120_000);

  it('refuses an auth_secret that is not a secret name, or names no secret, when the pipeline is saved', async () => {
    const save = (auth_secret: string) =>
      t.request('POST', '/v1/pipelines', {
        token: key,
        body: { name: `auth-${Math.random()}`, stages: [{ name: 'delegate', type: 'a2a', config: { agent_url: cardUrl, skill_id: 'shout', prompt: 'x', auth_secret } }] },
      });
    const badName = await save('not a name');
    expect(badName.status).toBe(400);
    expect(badName.body.field).toBe('body.stages[0].config.auth_secret');
    const missing = await save('NO_SUCH_SECRET');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ field: 'body.stages[0].config.auth_secret', error: expect.stringMatching(/NO_SUCH_SECRET, which does not exist/) });
  });
});
