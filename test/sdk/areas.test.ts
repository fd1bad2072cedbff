// The SDK's areas other than sandboxes, end to end against the real app (SQLite): keys, secrets, webhooks,
// alerts, billing, sessions with the batching ingester (also through a connection that drops answers),
// evals, A2A agents with a task streamed to completion, and pipelines of approval and gate stages run to
// the end. Sandbox stages and the examples run on a runtime: test/sdk/runtime/.
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, ConflictError, NotFoundError, Paddock, TimeoutError, type TaskStreamEvent } from '../../sdk/src/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { seedSandbox } from '../helpers/sessions.js';

const FAST = { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' };
const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
const ASK = { name: 'ask', type: 'await_approval' as const, config: { message: 'Ship it?', channels: ['dashboard'] } };
const CHECK = { name: 'check', type: 'gate' as const, config: { expression: 'true' }, depends_on: ['ask'] };

describe('the SDK areas against the real app', () => {
  let t: TestApp;
  let paddock: Paddock;
  let accountId: string;
  let key: string;

  beforeAll(async () => {
    t = await startApp('sqlite', FAST);
    const signedUp = await t.signupOnPlan('enterprise');
    key = signedUp.key;
    accountId = signedUp.account.id;
    paddock = new Paddock({ url: t.url, apiKey: key });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keys: creates one (its secret answered once), lists it, and a revoked key gets AuthenticationError', async () => {
    const created = await paddock.keys.create({ name: 'ci' });
    t.secrets.add(created.key);
    expect(created.key).toMatch(/^svc_sk_/);
    expect((await paddock.keys.list()).map((key) => key.id)).toContain(created.id);
    expect((await paddock.keys.list()).some((key) => 'key' in key)).toBe(false);
    const other = new Paddock({ url: t.url, apiKey: created.key });
    expect((await other.keys.account()).id).toBe(accountId);

    await paddock.keys.revoke(created.id);
    const refused = await other.keys.account().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: expect.any(String) });
    expect((await paddock.keys.list()).map((key) => key.id)).not.toContain(created.id);
  });

  it('secrets: set, read the metadata (never the value), list and delete', async () => {
    const secret = await paddock.secrets.set('DEPLOY_TOKEN', { value: 'hunter2-but-longer' });
    expect(secret.name).toBe('DEPLOY_TOKEN');
    expect(JSON.stringify(await paddock.secrets.get('DEPLOY_TOKEN'))).not.toContain('hunter2');
    expect((await paddock.secrets.list()).map((s) => s.name)).toEqual(['DEPLOY_TOKEN']);
    await paddock.secrets.delete('DEPLOY_TOKEN');
    const missing = await paddock.secrets.get('DEPLOY_TOKEN').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).code).toMatch(/not_found/);
  });

  it('webhooks: create answers the secret once; update, test delivery, list and delete', async () => {
    const endpoint = await paddock.webhooks.create({ url: 'https://hooks.example.com/paddock', events: ['*'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await paddock.webhooks.get(endpoint.id)).secret ?? null).toBeNull();
    const delivery = await paddock.webhooks.test(endpoint.id);
    expect((await paddock.webhooks.deliveries(endpoint.id)).map((d) => d.id)).toContain(delivery.id);
    expect((await paddock.webhooks.update(endpoint.id, { enabled: false })).enabled).toBe(false);
    expect(await paddock.webhooks.test(endpoint.id).catch((error: unknown) => error)).toBeInstanceOf(ConflictError);
    await paddock.webhooks.delete(endpoint.id);
    expect(await paddock.webhooks.list()).toEqual([]);
  });

  it('alerts: lists a raised alert, resolves it, and reads rules, channels and notifications', async () => {
    const raised = await t.services.alerts.raise({ accountId, type: 'sandbox_error', resource: { kind: 'sandbox', id: 'sbx_sdk' }, sandboxId: 'sbx_sdk', message: 'crashed' });
    const open = await paddock.alerts.list({ resolved: false });
    expect(open.map((alert) => alert.id)).toEqual([raised!.id]);
    const resolved = await paddock.alerts.resolve(raised!.id);
    expect(resolved).toMatchObject({ id: raised!.id, resolved: true });
    expect(await paddock.alerts.list({ resolved: false })).toEqual([]);
    const rules = await paddock.alerts.rules();
    const rule = rules.find((r) => r.type === 'sandbox_error')!;
    expect((await paddock.alerts.updateRule(rule.id, { enabled: false })).enabled).toBe(false);
    expect(await paddock.alerts.channels()).toBeTypeOf('object');
    expect((await paddock.alerts.notifications.list()).length).toBeGreaterThanOrEqual(1);
    expect(await paddock.alerts.notifications.markAllRead()).toBeGreaterThanOrEqual(1);
    expect(await paddock.alerts.notifications.unreadCount()).toBe(0);
  });

  it('billing: subscription, usage per day, pricing, and a plan request withdrawn by cancel', async () => {
    const subscription = await paddock.billing.subscription();
    expect(subscription).toMatchObject({ plan: 'enterprise' });
    const usage = await paddock.billing.usage();
    expect(Array.isArray(usage.days)).toBe(true);
    expect((await paddock.billing.pricing()).plans.length).toBeGreaterThan(1);
    const free = new Paddock({ url: t.url, apiKey: (await t.signup()).key });
    const checkout = await free.billing.checkout('pro');
    expect(checkout).toMatchObject({ status: 'pending', request_id: expect.any(String) });
    expect((await free.billing.cancel()).status).toBe('canceled');
    const nothing = await free.billing.cancel().catch((error: unknown) => error);
    expect(nothing).toBeInstanceOf(ConflictError);
  });

  it('sessions: create, then ingest 1,000 events in batches, each stored once and in order, flushed on close', async () => {
    const sandboxId = await seedSandbox(t, accountId);
    const session = await paddock.sessions.create({ sandboxId, agentType: 'sdk-test', model: 'gpt-4o' });
    expect(session).toMatchObject({ sandbox_id: sandboxId, status: 'active', agent_type: 'sdk-test', event_count: 1 });

    const ingester = paddock.sessions.ingest(session.id, { sandboxId, maxBatch: 150, flushIntervalMs: 60_000 });
    for (let index = 0; index < 1000; index++) ingester.add({ type: 'tool_call', payload: { name: 'step', index } });
    await ingester.close();
    expect(ingester.size).toBe(0);
    expect(ingester.stats).toEqual({ batches: 7, accepted: 1000, duplicates: 0, rejected: 0 });
    expect(() => ingester.add({ type: 'tool_call' })).toThrow(/closed/);

    const indexes: number[] = [];
    for await (const event of paddock.sessions.events(session.id, { type: 'tool_call', pageSize: 300 })) indexes.push(event.data.index as number);
    expect(indexes).toEqual([...Array(1000).keys()]);
    const summary = await paddock.sessions.summary(session.id);
    expect(summary).toMatchObject({ event_count: 1001, counts: { tool_call: 1000, lifecycle: 1 } });
    expect((await paddock.sessions.list({ sandbox_id: sandboxId })).map((s) => s.id)).toEqual([session.id]);
  });

  it('sessions: a program that ends without close() still sends what its ingester buffered (beforeExit)', async () => {
    const sandboxId = await seedSandbox(t, accountId);
    const sessionId = unique('exit');
    // The built package, as a user's program loads it; the interval is long, so only the exit flush can send.
    const program = `import { Paddock } from '@paddock/sdk';
      const ingester = new Paddock().sessions.ingest(${JSON.stringify(sessionId)}, { sandboxId: ${JSON.stringify(sandboxId)}, flushIntervalMs: 600000 });
      for (let index = 0; index < 250; index++) ingester.add({ type: 'tool_call', payload: { name: 'step', index } });`;
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', program], { env: { ...process.env, PADDOCK_URL: t.url, PADDOCK_API_KEY: key } }, (error, _stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(),
      ),
    );
    const indexes: number[] = [];
    for await (const event of paddock.sessions.events(sessionId, { type: 'tool_call', pageSize: 300 })) indexes.push(event.data.index as number);
    expect(indexes).toEqual([...Array(250).keys()]);
  });

  it('sessions: the ingester sends after flushIntervalMs without a flush, and reports refused events', async () => {
    const sandboxId = await seedSandbox(t, accountId);
    const refused: string[] = [];
    const ingester = paddock.sessions.ingest(unique('timed'), { sandboxId, flushIntervalMs: 100, onRejected: (_event, reason) => refused.push(reason) });
    ingester.add({ type: 'llm_call', payload: { model: 'gpt-4o', tokens_in: 3, tokens_out: 2 } });
    ingester.add({ type: 'llm_call', payload: { tokens_in: -1 } });
    await expect.poll(() => ingester.stats.batches, { timeout: 5000 }).toBe(1);
    expect(ingester.stats).toMatchObject({ accepted: 1, rejected: 1 });
    expect(refused).toEqual([expect.stringContaining('tokens_in')]);
    expect((await paddock.sessions.get(ingester.sessionId)).tokens_in).toBe(3);
    await ingester.close();
  });

  it('sessions: batches whose answer was lost are sent again, and every event is still stored once, in order', async () => {
    const sandboxId = await seedSandbox(t, accountId);
    const proxy = await answerDroppingProxy(t.url, 3);
    try {
      const flaky = new Paddock({ url: proxy.url, apiKey: paddock.http.apiKey, maxRetries: 0 });
      const ingester = flaky.sessions.ingest(unique('flaky'), { sandboxId, maxBatch: 100, flushIntervalMs: 60_000 });
      for (let index = 0; index < 300; index++) ingester.add({ type: 'command', payload: { command: `echo ${index}`, exit_code: 0 } });
      await ingester.close();
      expect(proxy.dropped()).toBe(3);
      const commands: string[] = [];
      for await (const event of paddock.sessions.events(ingester.sessionId)) commands.push(event.data.command as string);
      expect(commands).toEqual([...Array(300).keys()].map((index) => `echo ${index}`));
    } finally {
      await proxy.close();
    }
  });

  it('evals: scenarios and suites through create, list, get, update, results and delete', async () => {
    const scenario = await paddock.evals.scenarios.create({ name: unique('prints'), template: 'minimal', command: 'echo ok', checks: [{ type: 'output_contains', value: 'ok' }] });
    expect(scenario.id).toMatch(/^evs_/);
    expect((await paddock.evals.scenarios.update(scenario.id, { pass_threshold: 0.5 })).pass_threshold).toBe(0.5);
    expect((await paddock.evals.scenarios.list()).map((s) => s.id)).toContain(scenario.id);
    const suite = await paddock.evals.suites.create({ name: unique('suite'), scenario_ids: [scenario.id] });
    expect((await paddock.evals.suites.get(suite.id)).scenario_ids).toEqual([scenario.id]);
    expect(await paddock.evals.suites.results(suite.id)).toEqual([]);
    await paddock.evals.suites.delete(suite.id);
    await paddock.evals.scenarios.delete(scenario.id);
    const gone = await paddock.evals.scenarios.get(scenario.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(NotFoundError);
  });

  it('agents and tasks: registers an agent, reads its card and skills, and streams a task that needs input to completion', async () => {
    const pipeline = await paddock.pipelines.create({ name: unique('agent-pipeline'), stages: [ASK, CHECK] });
    const skill = { id: 'echo', name: 'Echo', description: 'Answers its query.', tags: ['test'], input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } };
    const agent = await paddock.agents.create({ name: unique('agent'), description: 'An SDK test agent.', pipeline_id: pipeline.id, skills: [skill] });
    expect((await paddock.agents.list()).map((a) => a.id)).toContain(agent.id);
    expect((await paddock.agents.skills(agent.id)).map((s) => s.id)).toEqual(['echo']);
    expect((await paddock.agents.card(agent.id)).name).toBe(agent.name);

    const task = await paddock.tasks.send(agent.id, { skill_id: 'echo', input: { query: 'hi' } });
    const seen: TaskStreamEvent[] = [];
    for await (const event of paddock.tasks.stream(task.id)) {
      seen.push(event);
      if (event.kind === 'status' && event.data.status === 'input_needed') await paddock.tasks.respond(task.id, 'yes');
    }
    expect(seen.at(-1)).toMatchObject({ kind: 'complete', data: { status: 'completed' } });
    expect(seen.map((event) => event.sequence)).toEqual(seen.map((_, index) => index + 1));
    const statuses = seen.filter((event) => event.kind === 'status').map((event) => event.data.status);
    expect(statuses).toEqual(['pending', 'running', 'input_needed', 'running', 'completed']);
    expect((await paddock.tasks.get(task.id)).status).toBe('completed');
    expect((await paddock.tasks.list({ agent_id: agent.id })).tasks.map((listed) => listed.id)).toEqual([task.id]);
    const resumed: number[] = [];
    for await (const event of paddock.tasks.stream(task.id, { afterSequence: seen.length - 2 })) resumed.push(event.sequence);
    expect(resumed).toEqual([seen.length - 1, seen.length]);

    const second = await paddock.tasks.send(agent.id, { skill_id: 'echo', input: { query: 'again' } });
    expect((await paddock.tasks.cancel(second.id, 'not needed')).status).toBe('canceled');
    await paddock.agents.delete(agent.id);
    expect(await paddock.agents.get(agent.id).catch((error: unknown) => error)).toMatchObject({ status: 404, code: 'agent_not_found' });
  });

  it('pipelines: create from an object, run, approve the gate, waitForRun → succeeded; reject, timeout, state, versions, archive', async () => {
    const pipeline = await paddock.pipelines.create({ name: unique('release'), stages: [ASK, CHECK] });
    expect(pipeline).toMatchObject({ version: 1, status: 'active' });
    const run = await paddock.pipelines.run(pipeline.id, { env: { TARGET: 'prod' } });
    const paused = await paddock.pipelines.waitForRun(run, { untilPaused: true, pollMs: 50, timeoutMs: 20_000 });
    expect(paused.status).toBe('paused');
    const late = await paddock.pipelines.waitForRun(pipeline.id, run.id, { timeoutMs: 200, pollMs: 50 }).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(TimeoutError);
    expect((late as TimeoutError).code).toBe('timeout');

    await paddock.pipelines.setState(pipeline.id, run.id, 'note', { value: { by: 'sdk' } });
    expect((await paddock.pipelines.state(pipeline.id, run.id, 'note')).value).toBe('{"by":"sdk"}');
    const decision = await paddock.pipelines.approve(pipeline.id, run.id, 'looks good');
    expect(decision.stage).toMatchObject({ name: 'ask', status: 'succeeded' });
    const done = await paddock.pipelines.waitForRun(run, { pollMs: 50, timeoutMs: 20_000 });
    expect(done.status).toBe('succeeded');
    expect(done.stages.map((stage) => [stage.name, stage.status])).toEqual([
      ['ask', 'succeeded'],
      ['check', 'succeeded'],
    ]);
    const timeline = await paddock.pipelines.events(pipeline.id, run.id);
    expect(timeline.events.map((event) => event.type)).toContain('pipeline.stage.approved');
    expect((await paddock.pipelines.runs(pipeline.id)).map((listed) => listed.id)).toEqual([run.id]);

    const rejected = await paddock.pipelines.run(pipeline.id);
    await paddock.pipelines.waitForRun(rejected, { untilPaused: true, pollMs: 50, timeoutMs: 20_000 });
    await paddock.pipelines.reject(pipeline.id, rejected.id, 'not today');
    expect((await paddock.pipelines.waitForRun(rejected, { pollMs: 50, timeoutMs: 20_000 })).status).toBe('canceled');

    const updated = await paddock.pipelines.update(pipeline.id, { stages: [{ name: 'only', type: 'gate', config: { expression: 'true' } }] });
    expect(updated.version).toBe(2);
    expect((await paddock.pipelines.versions(pipeline.id)).map((version) => version.version)).toEqual([2, 1]);
    await paddock.pipelines.archive(pipeline.id);
    const refused = await paddock.pipelines.run(pipeline.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as ConflictError).code).toBeTruthy();
    expect(await paddock.pipelines.get('pip_missing').catch((error: unknown) => error)).toBeInstanceOf(NotFoundError);
  });
});

/**
 * A real HTTP proxy in front of the app that forwards the first `drops` ingest requests but closes the
 * client's connection instead of answering: the server stored the batch, the client saw a failure.
 */
async function answerDroppingProxy(target: string, drops: number) {
  let dropped = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const upstream = await fetch(target + request.url, {
        method: request.method,
        headers: Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (request.url === '/v1/events/ingest' && dropped < drops) {
        dropped++;
        request.socket.destroy();
        return;
      }
      response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dropped: () => dropped,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
