// The A2A pages in Chromium against the real server, without a sandbox runtime: an agent registered
// through the API shows with its skills and public card; one registered in the page; a task whose
// pipeline waits for input (await_approval) shows its status change live over the task stream (SSE),
// is answered in the page, and completes before the user's eyes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, ECHO_SKILL, registerAgent } from '../helpers/a2a.js';
import { launchBrowser, openDashboard, PHONE, seriousAccessibilityViolations, signIn, type BrowserHandle } from './helpers/browser.js';

const FAST = { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' };
const ASK = { name: 'ask', type: 'await_approval', config: { message: 'Which colour?', channels: ['dashboard'] } };
const AFTER = { name: 'after', type: 'gate', config: { expression: 'true' }, depends_on: ['ask'] };

describe('dashboard agents in Chromium', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite', FAST), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists an agent registered through the API with its skills, shows its card, and disables it', async () => {
    const d = await openDashboard(browser);
    const user = await signIn(d, t);
    const agent = await registerAgent(t.url, user.key, { name: 'colour-picker', public: true });
    await d.page.goto(`${t.url}/agents`);
    await d.page.getByRole('link', { name: 'colour-picker' }).waitFor();
    expect(await d.page.getByRole('row', { name: /colour-picker/ }).textContent()).toContain(ECHO_SKILL.name);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    await d.page.getByRole('link', { name: 'colour-picker' }).click();
    await d.page.waitForURL(`${t.url}/agents/${agent.id}`);
    await d.page.getByRole('heading', { name: `${ECHO_SKILL.name} ${ECHO_SKILL.id}` }).waitFor();
    expect(await d.page.getByRole('list', { name: `Tags of ${ECHO_SKILL.name}` }).textContent()).toBe('test');
    const card = (await t.request('GET', `/.well-known/agent/${agent.id}.json`)).body;
    await d.page.getByText('The card as JSON').click();
    expect(JSON.parse((await d.page.getByTestId('agent-card-json').textContent())!)).toEqual(card);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    await d.page.getByRole('button', { name: 'Disable' }).click();
    await d.page.getByRole('button', { name: 'Enable' }).waitFor();
    expect((await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: user.key })).body).toMatchObject({ enabled: false, version: 2 });
    await d.page.getByText('This agent is disabled').waitFor();
    await d.finish('agent');
  });

  it('registers an agent in the page', async () => {
    const d = await openDashboard(browser);
    const user = await signIn(d, t);
    const pipeline = await createPipeline(t.url, user.key);
    await d.page.goto(`${t.url}/agents/new`);
    await d.page.getByLabel('Name', { exact: true }).fill('answerer');
    await d.page.getByLabel('Pipeline').selectOption(pipeline.id);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.page.getByRole('button', { name: 'Register' }).click();
    await d.page.waitForURL(/\/agents\/(?!new)[^/]+$/);
    const agents = (await t.request('GET', '/v1/a2a/agents', { token: user.key })).body.agents;
    expect(agents).toMatchObject([{ name: 'answerer', pipeline_id: pipeline.id, public: false, skills: [{ id: 'answer' }] }]);
    expect(d.page.url()).toBe(`${t.url}/agents/${agents[0].id}`);
    await d.page.getByText('This agent is private').waitFor();
    await d.finish('agent-registered');
  });

  it('follows a task live over its stream, answers it when it needs input, and sees it complete', async () => {
    const d = await openDashboard(browser);
    const user = await signIn(d, t);
    const pipeline = await createPipeline(t.url, user.key, { stages: [ASK, AFTER] });
    const agent = await registerAgent(t.url, user.key, { pipeline_id: pipeline.id });
    const streams: string[] = [];
    d.page.on('request', (request) => {
      if (request.url().includes('/stream')) streams.push(new URL(request.url()).pathname);
    });
    const created = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: user.key, body: { skill_id: ECHO_SKILL.id, input: { query: 'paint it' } } });
    expect(created.status, created.text).toBe(201);
    const taskId = created.body.id as string;

    await d.page.goto(`${t.url}/agents/tasks/${taskId}`);
    const status = d.page.getByTestId('task-status');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('input needed');
    expect(streams).toEqual([`/v1/a2a/tasks/${taskId}/stream`]);
    expect(await d.page.getByTestId('task-events').textContent()).toContain('agent: Which colour?');
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    await d.page.getByLabel('Your answer').fill('blue');
    await d.page.getByRole('button', { name: 'Send answer' }).click();
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('completed');
    await d.page.getByText('Updates: ended').waitFor();
    expect(await d.page.getByTestId('task-events').textContent()).toContain('user: blue');
    const task = (await t.request('GET', `/v1/a2a/tasks/${taskId}`, { token: user.key })).body;
    expect(task.status).toBe('completed');
    const messages = (await t.request('GET', `/v1/a2a/tasks/${taskId}/messages`, { token: user.key })).body.messages;
    expect(messages.at(-1)).toMatchObject({ role: 'user', parts: [{ type: 'text', text: 'blue' }] });
    expect(streams).toEqual([`/v1/a2a/tasks/${taskId}/stream`]);
    await d.finish('agent-task');

    // Rejecting ends the task canceled: the stream's last event is an `error`, not a broken connection.
    const rejected = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: user.key, body: { skill_id: ECHO_SKILL.id, input: { query: 'no' } } });
    const other = await openDashboard(browser);
    await signIn(other, t, user);
    await other.page.goto(`${t.url}/agents/tasks/${rejected.body.id}`);
    const otherStatus = other.page.getByTestId('task-status');
    await expect.poll(() => otherStatus.textContent(), { timeout: 20_000 }).toBe('input needed');
    await other.page.getByRole('button', { name: 'Reject and cancel the task' }).click();
    await expect.poll(() => otherStatus.textContent(), { timeout: 20_000 }).toBe('canceled');
    await other.page.getByText('Updates: ended').waitFor();
    expect((await t.request('GET', `/v1/a2a/tasks/${rejected.body.id}`, { token: user.key })).body.status).toBe('canceled');
    await other.finish('agent-task-rejected');

    const list = await openDashboard(browser, { viewport: PHONE });
    await signIn(list, t, user);
    await list.page.goto(`${t.url}/agents/tasks`);
    const row = list.page.getByRole('row', { name: new RegExp(taskId) });
    // The agents' names come from their own request, which may answer after the tasks'.
    await expect.poll(() => row.textContent()).toContain('completed');
    await expect.poll(() => row.textContent()).toContain(agent.name);
    expect(await seriousAccessibilityViolations(list.page)).toEqual([]);
    await list.finish('agent-tasks-phone');
  });
});
