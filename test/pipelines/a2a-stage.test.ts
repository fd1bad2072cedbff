// The a2a stage executor against a real A2A agent (the A2A SDK's server on express, started here):
// output stored in state, remote failure, interruption, the cost limit, cancellation through the
// stage's signal, the skill check, and the SSRF guard on agent_url.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2aStage, parseA2aStageConfig } from '../../src/pipelines/stages/a2a.js';
import { startTestAgent, type TestAgent } from '../helpers/a2a-agent.js';
import { stageContext } from '../helpers/stage-context.js';

const open = { allowPrivate: true, allowHttp: true };

describe.each([true, false])('a2a stage (agent streaming: %s)', (streaming) => {
  let agent: TestAgent;
  const stage = createA2aStage({ policy: open, pollIntervalMs: 50 });
  const config = (skill_id: string, extra: Record<string, unknown> = {}) => ({ agent_url: agent.url, skill_id, prompt: 'summarise the diff', ...extra });

  beforeAll(async () => {
    agent = await startTestAgent({ streaming });
  });
  afterAll(async () => {
    await agent?.close();
  });

  it('delegates the prompt for the skill and stores the output in state', async () => {
    const context = stageContext('acc_1', 'review', config('echo', { max_cost_usd: 0.05 }));
    const outcome = await stage(context);
    expect(outcome).toEqual({ status: 'succeeded', cost_usd: 0.01 });
    const sent = agent.received.at(-1)!;
    expect(sent.parts[0].content).toEqual({ $case: 'text', value: 'summarise the diff' });
    expect(sent.metadata).toMatchObject({ skill_id: 'echo', paddock_stage: 'review', paddock_run_id: context.runId });
    const stored = context.stateEntries.get('review_output')!;
    expect(stored.type).toBe('json');
    const output = JSON.parse(stored.value);
    expect(output).toMatchObject({ agent_url: agent.url, state: 'completed', text: 'echo: summarise the diff', data: [{ length: 18 }], cost_usd: 0.01 });
    expect(output.task_id).toBeTruthy();
    expect(output.artifacts).toEqual([{ id: 'answer', name: 'answer', text: 'echo: summarise the diff', data: [{ length: 18 }] }]);
  });

  it('fails with the remote message when the agent fails the task, storing nothing', async () => {
    const context = stageContext('acc_1', 'review', config('fail'));
    const outcome = await stage(context);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/^a2a: the agent's task \S+ ended failed: model overloaded, try later$/);
    expect(context.stateEntries.size).toBe(0);
  });

  it('fails when the agent asks for input, and cancels the remote task', async () => {
    const before = agent.canceled.length;
    const outcome = await stage(stageContext('acc_1', 'review', config('ask')));
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/^a2a: the agent asked for more \(input-required: which repository\?\), which a pipeline stage cannot give; remote task \S+ canceled$/);
    expect(agent.canceled.length).toBe(before + 1);
  });

  it('fails and cancels the remote task when the reported cost passes max_cost_usd', async () => {
    const before = agent.canceled.length;
    const outcome = await stage(stageContext('acc_1', 'review', config('spend', { max_cost_usd: 0.1 })));
    expect(outcome.status).toBe('failed');
    expect(outcome.cost_usd).toBe(0.5);
    expect(outcome.error).toMatch(/^a2a: the agent reported a cost of 0\.5 USD, over max_cost_usd 0\.1; remote task \S+ canceled$/);
    expect(agent.canceled.length).toBe(before + 1);
  });

  it('stops promptly when the stage signal aborts, and cancels the remote task', async () => {
    const before = agent.canceled.length;
    const context = stageContext('acc_1', 'review', config('slow'));
    const started = Date.now();
    setTimeout(() => context.controller.abort(new Error('stage timed out')), 500);
    const outcome = await stage(context);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/^a2a: stopped: stage timed out; remote task \S+ canceled$/);
    expect(agent.canceled.length).toBe(before + 1);
  });

  it('refuses a skill the agent does not have', async () => {
    const outcome = await stage(stageContext('acc_1', 'review', config('translate')));
    expect(outcome).toEqual({ status: 'failed', error: 'a2a: agent Test Agent has no skill translate (it has: echo, fail, spend, slow, ask)' });
  });
});

describe('a2a stage outbound guard', () => {
  it('refuses a loopback agent unless private targets are allowed', async () => {
    const agent = await startTestAgent();
    try {
      const guarded = createA2aStage({ policy: { allowPrivate: false, allowHttp: true } });
      const outcome = await guarded(stageContext('acc_1', 'review', { agent_url: agent.url, skill_id: 'echo', prompt: 'hi' }));
      expect(outcome.status).toBe('failed');
      expect(outcome.error).toMatch(/^a2a: could not reach the agent at http:\/\/127\.0\.0\.1:\d+: .*the URL points to the non-public address 127\.0\.0\.1 \(loopback\)/);
      expect(agent.received).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it('refuses http agents unless plain http is allowed, and reports an unreachable agent', async () => {
    const httpOnly = createA2aStage({ policy: { allowPrivate: true, allowHttp: false } });
    expect((await httpOnly(stageContext('acc_1', 's', { agent_url: 'http://127.0.0.1:9/', skill_id: 'x', prompt: 'p' }))).error).toMatch(/must be an https:\/\/ URL/);
    const stage = createA2aStage({ policy: open });
    expect((await stage(stageContext('acc_1', 's', { agent_url: 'http://127.0.0.1:9/', skill_id: 'x', prompt: 'p' }))).error).toMatch(/^a2a: could not reach the agent at http:\/\/127\.0\.0\.1:9\/: /);
  });

  it('names the bad config field', () => {
    expect(parseA2aStageConfig({ skill_id: 'x', prompt: 'p' })).toEqual({ problem: 'config.agent_url is required (a non-empty string)' });
    expect(parseA2aStageConfig({ agent_url: 'ftp://x', skill_id: 'x', prompt: 'p' })).toEqual({ problem: 'config.agent_url must be an http(s) URL' });
    expect(parseA2aStageConfig({ agent_url: 'https://x', skill_id: 'x', prompt: 'p', max_cost_usd: -1 })).toEqual({ problem: 'config.max_cost_usd must be a number >= 0' });
  });
});

describe('a2a stage against a misbehaving agent', () => {
  it('stops reading an answer past 16 MiB', async () => {
    const http = await import('node:http');
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const push = () => {
        while (sent < 64 && response.write(chunk)) sent++;
        if (sent < 64) response.once('drain', push);
        else response.end('{}');
      };
      push();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const outcome = await createA2aStage({ policy: open })(stageContext('acc_1', 's', { agent_url: `http://127.0.0.1:${port}`, skill_id: 'x', prompt: 'p' }));
      expect(outcome.status).toBe('failed');
      expect(outcome.error).toMatch(/^a2a: could not reach the agent at .*the response is larger than 16777216 bytes/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
