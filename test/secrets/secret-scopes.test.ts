// Secret values are for full-scope keys only: a `sandbox` or `read` key can neither name secrets at
// create nor reach inside a sandbox that holds them (exec, files, git, terminal, preview protection),
// its snapshots' content, its recorded sessions' events, a failed set-up step's output, or the env of
// a pipeline's stage sandbox or an eval scenario's sandbox.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, startRun, waitForRun } from '../helpers/pipelines.js';
import { waitForSandboxStatus } from '../helpers/sandboxes.js';
import { waitFor } from '../helpers/wait-for.js';

const MATRIX = [
  ['sqlite', 'runc'],
  ['postgres', 'gvisor'],
] as const;

describe.each(MATRIX)('secrets and scopes on %s with %s', (backend, runtime) => {
  let t: TestApp;
  let full: string;
  let sandboxKey: string;
  let readKey: string;
  const value = `sk-live-${Math.random().toString(36).slice(2)}-scoped`;
  const hex = Buffer.from(value).toString('hex');

  const mint = async (scope: string) => {
    const reply = await t.request('POST', '/v1/account/keys', { token: full, body: { name: `k-${scope}`, scope } });
    expect(reply.status, reply.text).toBe(201);
    return reply.body.key as string;
  };
  const create = (token: string, body: object = {}) => t.request('POST', '/v1/sandboxes', { token, body: { template: 'minimal', network_mode: 'none', disk_gb: 1, cpus: 1, memory_mb: 256, ...body } });
  const exec = (token: string, id: string, command: string) => t.request('POST', `/v1/sandboxes/${id}/exec`, { token, body: { command } });
  const expectScopeDenied = (reply: { status: number; body: any; text: string }, names: RegExp = /full-scope key/) => {
    expect(reply.status, reply.text).toBe(403);
    expect(reply.body.error).toMatch(names);
  };

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' }, { runtime });
    full = (await t.signupOnPlan('enterprise')).key;
    sandboxKey = await mint('sandbox');
    readKey = await mint('read');
    t.secrets.add(value);
    expect((await t.request('PUT', '/v1/secrets/API_TOKEN', { token: full, body: { value } })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses to let a sandbox-scope key name secrets at create, with a 403 naming body.secrets', async () => {
    const before = await t.request('GET', '/v1/sandboxes?include_destroyed=true', { token: full });
    const denied = await create(sandboxKey, { secrets: ['API_TOKEN'] });
    expectScopeDenied(denied, /body\.secrets needs a full-scope key/);
    expect(denied.text).not.toContain(value);
    // Even an unknown name is refused for the scope first: the key learns nothing about which secrets exist.
    expectScopeDenied(await create(sandboxKey, { secrets: ['NO_SUCH_SECRET'] }), /body\.secrets/);
    expect((await create(readKey, { secrets: ['API_TOKEN'] })).status).toBe(403);
    // Nothing was created.
    expect((await t.request('GET', '/v1/sandboxes?include_destroyed=true', { token: full })).body).toEqual(before.body);
    // Without secrets the same key creates sandboxes as before.
    const plain = await create(sandboxKey);
    expect(plain.status, plain.text).toBe(201);
    await t.request('DELETE', `/v1/sandboxes/${plain.body.id}`, { token: sandboxKey });
  });

  it("keeps narrower keys out of a sandbox holding secrets, its snapshots' content and its sessions' events", async () => {
    const inlineToken = `inline-${Math.random().toString(36).slice(2)}`;
    const held = await create(full, { secrets: ['API_TOKEN'], env: { PLAIN: 'visible' }, init_script: `echo ${inlineToken} > /tmp/configured` });
    expect(held.status, held.text).toBe(201);
    const id = held.body.id as string;
    const plain = await create(sandboxKey);
    expect(plain.status, plain.text).toBe(201);

    // Full scope reads the value (the control) and prints a hex copy, which masking does not catch.
    expect((await exec(full, id, 'printenv API_TOKEN')).body.output.trim()).toBe(value);
    expect((await exec(full, id, 'printf %s "$API_TOKEN" | od -An -tx1 | tr -d " \\n"')).body.output).toBe(hex);

    // The sandbox itself can be seen, paused, resumed: names only, never values.
    for (const token of [sandboxKey, readKey]) {
      const got = await t.request('GET', `/v1/sandboxes/${id}`, { token });
      expect(got.status).toBe(200);
      expect(got.body.secrets).toEqual(['API_TOKEN']);
      expect(got.body.init_script).toBe('***');
      expect(got.text).not.toContain(inlineToken);
      expect(got.text).not.toContain(value);
    }
    expect((await t.request('GET', `/v1/sandboxes/${id}`, { token: full })).body.init_script).toBe(`echo ${inlineToken} > /tmp/configured`);

    // Inside: exec, streaming exec, files, git, terminal, preview protection.
    for (const token of [sandboxKey]) {
      expectScopeDenied(await exec(token, id, 'env'));
      expectScopeDenied(await t.request('POST', `/v1/sandboxes/${id}/exec/stream`, { token, body: { command: 'env' } }));
      expectScopeDenied(await t.request('PUT', `/v1/sandboxes/${id}/files/content?path=/workspace/x.sh`, { token, raw: 'echo planted', contentType: 'application/octet-stream' }));
      expectScopeDenied(await t.request('POST', `/v1/sandboxes/${id}/terminal/tickets`, { token }));
      expectScopeDenied(await t.request('POST', `/v1/sandboxes/${id}/ports/8080/protect`, { token, body: { password: 'long-enough-pw' } }));
      expectScopeDenied(await t.request('DELETE', `/v1/sandboxes/${id}/ports/8080/protect`, { token }));
    }
    for (const token of [sandboxKey, readKey]) {
      const environ = await t.request('GET', `/v1/sandboxes/${id}/files/content?path=/proc/1/environ`, { token });
      expectScopeDenied(environ);
      expect(environ.text).not.toContain(value);
      expectScopeDenied(await t.request('GET', `/v1/sandboxes/${id}/files?path=/workspace`, { token }));
      expectScopeDenied(await t.request('GET', `/v1/sandboxes/${id}/git/diff`, { token }));
    }
    // The WebSocket terminal refuses before the upgrade, whatever credential opens it.
    const upgrade = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(`${t.url.replace('http', 'ws')}/v1/sandboxes/${id}/terminal`, { headers: { authorization: `Bearer ${sandboxKey}` } });
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('open', () => {
        socket.close();
        resolve(101);
      });
      socket.on('error', reject);
    });
    expect(upgrade).toBe(403);
    // The same files of a sandbox without secrets stay readable to both.
    expect((await t.request('GET', `/v1/sandboxes/${plain.body.id}/files/content?path=/etc/hostname`, { token: readKey })).status).toBe(200);
    expect((await exec(sandboxKey, plain.body.id, 'true')).body.exit_code).toBe(0);

    // Snapshots: taking one is allowed, downloading or restoring its content is not.
    const snapshot = await t.request('POST', `/v1/sandboxes/${id}/snapshots`, { token: sandboxKey, body: { name: 'of-secrets' } });
    expect(snapshot.status, snapshot.text).toBe(201);
    expect((await t.request('GET', `/v1/snapshots/${snapshot.body.id}`, { token: sandboxKey })).status).toBe(200);
    expectScopeDenied(await t.request('GET', `/v1/snapshots/${snapshot.body.id}/download`, { token: sandboxKey }));
    expectScopeDenied(await t.request('POST', `/v1/snapshots/${snapshot.body.id}/restore`, { token: sandboxKey, body: { sandbox_id: plain.body.id } }));
    expect((await t.request('GET', `/v1/snapshots/${snapshot.body.id}/download`, { token: full })).status).toBe(200);
    // Nor can a sandbox key restore its own snapshot over the sandbox holding secrets (planting files there).
    const own = await t.request('POST', `/v1/sandboxes/${plain.body.id}/snapshots`, { token: sandboxKey, body: { name: 'own' } });
    expect(own.status, own.text).toBe(201);
    expectScopeDenied(await t.request('POST', `/v1/snapshots/${own.body.id}/restore`, { token: sandboxKey, body: { sandbox_id: id } }), /body\.sandbox_id/);
    expect((await t.request('POST', `/v1/snapshots/${own.body.id}/restore`, { token: sandboxKey, body: { sandbox_id: plain.body.id } })).status).toBe(200);

    // Sessions: the totals are readable, the recorded events (holding the hex copy) are not.
    const sessions = await t.request('GET', `/v1/sandboxes/${id}/sessions`, { token: readKey });
    expect(sessions.status).toBe(200);
    const sessionId = sessions.body[0].id as string;
    expect((await t.request('GET', `/v1/sessions/${sessionId}`, { token: readKey })).status).toBe(200);
    expectScopeDenied(await t.request('GET', `/v1/sessions/${sessionId}/replay`, { token: readKey }));
    expectScopeDenied(await t.request('GET', `/v1/sessions/${sessionId}/replay/summary`, { token: readKey }));
    const replay = await t.request('GET', `/v1/sessions/${sessionId}/replay`, { token: full });
    expect(replay.status).toBe(200);
    // Masking catches the plain value, not an encoding of it: the reason it is only a second line.
    expect(replay.text).not.toContain(value);
    expect(replay.text).toContain(hex);

    // Restoring its snapshot elsewhere (full scope) carries the mark: the target now holds the files too.
    expect((await t.request('POST', `/v1/snapshots/${snapshot.body.id}/restore`, { token: full, body: { sandbox_id: plain.body.id } })).status).toBe(200);
    expectScopeDenied(await exec(sandboxKey, plain.body.id, 'true'));

    // What needs nothing from inside stays open to the sandbox scope.
    expect((await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: sandboxKey })).status).toBe(200);
    expect((await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: sandboxKey })).status).toBe(200);
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: sandboxKey })).status).toBe(204);
    expect((await t.request('DELETE', `/v1/sandboxes/${plain.body.id}`, { token: sandboxKey })).status).toBe(204);
  });

  it('shows narrower keys only where a callback goes, not its path or query (a chat webhook path is its credential)', async () => {
    const hook = 'https://hooks.example.com/services/T0/B0/callback-path-secret?token=query-secret';
    const created = await create(sandboxKey, { on_complete: hook, budget: 1, on_budget_exceeded: `${hook}&budget=1` });
    expect(created.status, created.text).toBe(201);
    for (const token of [sandboxKey, readKey]) {
      const seen = await t.request('GET', `/v1/sandboxes/${created.body.id}`, { token });
      expect(seen.body).toMatchObject({ on_complete: 'https://hooks.example.com/***', on_budget_exceeded: 'https://hooks.example.com/***' });
      expect(seen.text).not.toMatch(/callback-path-secret|query-secret/);
    }
    expect((await t.request('GET', `/v1/sandboxes/${created.body.id}`, { token: full })).body.on_complete).toBe(hook);
    await t.request('DELETE', `/v1/sandboxes/${created.body.id}`, { token: full });
  });

  it("masks secret values in a failed set-up step's error, and withholds its output from narrower keys", async () => {
    const failed = await create(full, { secrets: ['API_TOKEN'], init_script: 'echo "token=$API_TOKEN"; printf %s "$API_TOKEN" | od -An -tx1 | tr -d " \\n"; exit 7' });
    expect(failed.status, failed.text).toBe(201);
    const sandbox = await waitForSandboxStatus(t, full, failed.body.id, ['running', 'error'], 30_000);
    expect(sandbox.status).toBe('error');
    expect(sandbox.error).toContain('token=***');
    expect(sandbox.error).not.toContain(value);
    expect(sandbox.error).toContain(hex);
    for (const token of [sandboxKey, readKey]) {
      const narrow = await t.request('GET', `/v1/sandboxes/${failed.body.id}`, { token });
      expect(narrow.body.error).toMatch(/^init_script exited with 7 \(details withheld/);
      expect(narrow.text).not.toContain(hex);
    }
    await t.request('DELETE', `/v1/sandboxes/${failed.body.id}`, { token: full });
  });

  it("keeps a pipeline's env in its stage sandboxes away from narrower keys", async () => {
    const runToken = `deploy-${Math.random().toString(36).slice(2)}`;
    t.secrets.add(runToken);
    const pipeline = await createPipeline(t, full, { stages: [{ name: 'slow', type: 'command', template: 'minimal', command: 'sleep 4' }] });
    const known = new Set(((await t.request('GET', '/v1/sandboxes?include_destroyed=true', { token: full })).body as { id: string }[]).map((s) => s.id));
    const run = await startRun(t, full, pipeline.id, { env: { DEPLOY_TOKEN: runToken } });
    const stageSandbox = await waitFor(
      'the stage sandbox to run',
      async () => {
        const listed = await t.request('GET', '/v1/sandboxes', { token: sandboxKey });
        return (listed.body as { id: string; status: string }[]).find((s) => s.status === 'running' && !known.has(s.id))?.id;
      },
      20_000,
      100,
    );
    for (const token of [sandboxKey, readKey]) {
      const got = await t.request('GET', `/v1/sandboxes/${stageSandbox}`, { token });
      expect(got.status).toBe(200);
      expect(got.body.env.DEPLOY_TOKEN).toBe('***');
      expect(got.text).not.toContain(runToken);
    }
    expect((await t.request('GET', `/v1/sandboxes/${stageSandbox}`, { token: full })).body.env.DEPLOY_TOKEN).toBe(runToken);
    const environ = await exec(sandboxKey, stageSandbox!, 'cat /proc/*/environ');
    expectScopeDenied(environ);
    expect(environ.text).not.toContain(runToken);
    expect((await waitForRun(t, full, pipeline.id, run.id)).status).toBe('succeeded');
  });

  it("keeps an eval scenario's env in its sandbox away from narrower keys", async () => {
    const scenarioToken = `eval-${Math.random().toString(36).slice(2)}`;
    t.secrets.add(scenarioToken);
    const known = new Set(((await t.request('GET', '/v1/sandboxes?include_destroyed=true', { token: full })).body as { id: string }[]).map((s) => s.id));
    const scenario = await t.request('POST', '/v1/evals/scenarios', {
      token: full,
      body: { name: `env-${runtime}`, template: 'minimal', command: 'test -n "$EVAL_TOKEN"', env: { EVAL_TOKEN: scenarioToken }, checks: [{ type: 'exit_code', equals: 0 }] },
    });
    expect(scenario.status, scenario.text).toBe(201);
    const result = await t.request('POST', `/v1/evals/scenarios/${scenario.body.id}/run`, { token: full });
    expect(result.body.status, result.text).toBe('passed');
    const evalSandbox = ((await t.request('GET', '/v1/sandboxes?include_destroyed=true', { token: full })).body as { id: string }[]).find((s) => !known.has(s.id));
    expect(evalSandbox).toBeDefined();
    const narrow = await t.request('GET', `/v1/sandboxes/${evalSandbox!.id}`, { token: readKey });
    expect(narrow.body.env).toEqual({ EVAL_TOKEN: '***' });
    expect(narrow.text).not.toContain(scenarioToken);
    expect((await t.request('GET', `/v1/sandboxes/${evalSandbox!.id}`, { token: full })).body.env).toEqual({ EVAL_TOKEN: scenarioToken });
  });
});
