import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, openDashboard, PHONE, saveScreenshot, seriousAccessibilityViolations, signIn, type BrowserHandle, type DashboardPage } from './helpers/browser.js';

// Gate and approval stages run without a sandbox, so these pipelines need no runtime.
const gate = (name: string, depends_on: string[] = []) => ({ name, type: 'gate', depends_on, config: { expression: 'true' } });
const diamond = { name: 'diamond', description: 'Fans out and joins', stages: [gate('lint'), gate('unit', ['lint']), gate('types', ['lint']), gate('package', ['unit', 'types'])] };
const approval = (name: string) => ({
  name,
  stages: [gate('check'), { name: 'sign-off', type: 'await_approval', depends_on: ['check'], config: { message: 'Ship release 7?', channels: ['dashboard'] } }, gate('ship', ['sign-off'])],
});

describe('dashboard pipelines and runs in Chromium', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite'), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A team-plan account signed in to a new browser context (the live pages poll; the free plan's rate is tight for a test). */
  async function signedIn(options: { viewport?: { width: number; height: number }; allowProblems?: RegExp } = {}): Promise<{ d: DashboardPage; key: string }> {
    const account = await t.signup();
    await t.storage.db.updateTable('accounts').set({ plan: 'team' }).where('id', '=', account.account.id).execute();
    const d = await openDashboard(browser, options);
    await signIn(d, t, account);
    return { d, key: account.key };
  }

  const nodes = (d: DashboardPage) => d.page.locator('[data-testid="dag"] [data-stage]');
  const edges = (d: DashboardPage) => d.page.locator('[data-testid="dag"] [data-edge]');

  it('creates a pipeline from a definition, shows the API message for a bad one, and draws its DAG', async () => {
    const { d, key } = await signedIn({ allowProblems: /status of 400/ });
    await d.page.goto(`${t.url}/pipelines`);
    await d.page.getByText('No pipelines yet').waitFor();
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    await d.page.getByRole('button', { name: 'New pipeline' }).click();
    const cyclic = { name: 'loop', stages: [gate('a', ['b']), gate('b', ['a'])] };
    await d.page.getByLabel('Definition (JSON)').fill(JSON.stringify(cyclic));
    await d.page.getByRole('button', { name: 'Create pipeline' }).click();
    const refusal = await t.request('POST', '/v1/pipelines', { token: key, body: cyclic });
    expect(refusal.status).toBe(400);
    await expect.poll(() => d.page.getByRole('alert').textContent()).toBe(refusal.body.error);

    await d.page.getByLabel('Definition (JSON)').fill(JSON.stringify(diamond));
    await d.page.getByRole('button', { name: 'Create pipeline' }).click();
    await d.page.waitForURL(/\/pipelines\/[^/?]+$/);
    await d.page.getByRole('heading', { name: 'diamond' }).waitFor();
    await expect.poll(() => nodes(d).count()).toBe(4);
    expect(await edges(d).count()).toBe(4);
    expect(await d.page.locator('[data-stage="package"]').textContent()).toBe('packagegate');

    // Nodes are reachable by keyboard and select the stage.
    await d.page.locator('[data-stage="unit"]').focus();
    await d.page.keyboard.press('Enter');
    await d.page.getByRole('region', { name: 'Stage unit' }).waitFor();
    expect(await d.page.locator('[data-stage="unit"]').getAttribute('aria-pressed')).toBe('true');
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('pipeline-detail');

    const list = await t.request('GET', '/v1/pipelines', { token: key });
    expect(list.body.map((pipeline: { name: string }) => pipeline.name)).toEqual(['diamond']);
  });

  it('saves a new version and shows an older one', async () => {
    const { d, key } = await signedIn();
    const created = await t.request('POST', '/v1/pipelines', { token: key, body: diamond });
    await d.page.goto(`${t.url}/pipelines/${created.body.id}`);
    await expect.poll(() => nodes(d).count()).toBe(4);
    await d.page.getByRole('button', { name: 'New version' }).click();
    const grown = { ...diamond, stages: [...diamond.stages, gate('publish', ['package'])] };
    await d.page.getByLabel('Definition (JSON)').fill(JSON.stringify(grown));
    await d.page.getByRole('button', { name: 'Save as a new version' }).click();
    await expect.poll(() => nodes(d).count()).toBe(5);
    expect(await edges(d).count()).toBe(5);
    const current = await t.request('GET', `/v1/pipelines/${created.body.id}`, { token: key });
    expect(current.body.version).toBe(2);

    await d.page.getByRole('link', { name: 'View version 1' }).click();
    await d.page.getByRole('heading', { name: 'Stages (version 1)' }).waitFor();
    await expect.poll(() => nodes(d).count()).toBe(4);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('pipeline-versions');
  });

  it('starts a run that waits for approval, approves it with a comment, and shows the run finish without a reload', async () => {
    const { d, key } = await signedIn();
    const pipeline = await t.request('POST', '/v1/pipelines', { token: key, body: approval('release') });
    await d.page.goto(`${t.url}/pipelines/${pipeline.body.id}`);
    await d.page.getByRole('button', { name: 'Start a run' }).click();
    await d.page.getByLabel('Name 1').fill('TARGET');
    await d.page.getByLabel('Value 1').fill('prod');
    await d.page.getByRole('button', { name: 'Start run', exact: true }).click();
    await d.page.waitForURL(/\/runs\/[^/?]+\?pipeline=/);
    const runId = new URL(d.page.url()).pathname.split('/').pop()!;

    await d.page.getByRole('heading', { name: 'Waiting for approval: sign-off' }).waitFor();
    await d.page.getByText('Ship release 7?').waitFor();
    expect(await d.page.getByTestId('run-status').textContent()).toBe('paused');
    expect(await d.page.locator('[data-stage="sign-off"] .dag-type').textContent()).toBe('await_approval · paused approval');
    expect(await d.page.locator('[data-stage="check"]').getAttribute('class')).toContain('dag-status-succeeded');
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    await d.page.getByLabel('Comment').fill('Looks good to me');
    await d.page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => d.page.getByTestId('run-status').textContent(), { timeout: 20_000 }).toBe('succeeded');
    await expect.poll(() => d.page.locator('[data-stage="ship"]').getAttribute('class')).toContain('dag-status-succeeded');

    const run = await t.request('GET', `/v1/pipelines/${pipeline.body.id}/runs/${runId}`, { token: key });
    expect(run.body.status).toBe('succeeded');
    expect(run.body.input.env).toEqual({ TARGET: 'prod' });
    const signOff = run.body.stages.find((stage: { name: string }) => stage.name === 'sign-off');
    expect(signOff.approval).toMatchObject({ decision: expect.stringMatching(/^approve/), comment: 'Looks good to me' });

    await d.page.getByRole('button', { name: 'sign-off', exact: true }).click();
    await expect.poll(() => d.page.getByTestId('approval-decision').textContent()).toMatch(/approve/);
    await d.page.getByText('Looks good to me').waitFor();
    await d.page.getByText('run.completed').waitFor();
    await d.finish('run-approved');
  });

  it('rejects a waiting run with a comment on a phone, and lists the runs with their statuses', async () => {
    const { d, key } = await signedIn({ viewport: PHONE });
    const pipeline = await t.request('POST', '/v1/pipelines', { token: key, body: approval('hotfix') });
    const started = await t.request('POST', `/v1/pipelines/${pipeline.body.id}/runs`, { token: key, body: {} });
    expect(started.status).toBe(201);
    await d.page.goto(`${t.url}/runs/${started.body.id}?pipeline=${pipeline.body.id}`);
    await d.page.getByRole('heading', { name: 'Waiting for approval: sign-off' }).waitFor();
    await d.page.getByLabel('Comment').fill('Not this week');
    await d.page.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => d.page.getByTestId('run-status').textContent(), { timeout: 20_000 }).toBe('canceled');
    expect(await d.page.getByRole('heading', { name: /Waiting for approval/ }).count()).toBe(0);
    expect(await d.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    const run = await t.request('GET', `/v1/pipelines/${pipeline.body.id}/runs/${started.body.id}`, { token: key });
    expect(run.body.status).toBe('canceled');
    const signOff = run.body.stages.find((stage: { name: string }) => stage.name === 'sign-off');
    expect(signOff.approval).toMatchObject({ decision: expect.stringMatching(/^reject/), comment: 'Not this week' });
    expect(run.body.stages.find((stage: { name: string }) => stage.name === 'ship').status).not.toBe('succeeded');
    await saveScreenshot(d.page, 'run-rejected-phone');

    await d.page.goto(`${t.url}/runs`);
    const row = d.page.getByRole('row').filter({ has: d.page.getByRole('link', { name: started.body.id }) });
    await row.waitFor();
    expect(await row.locator('.status').textContent()).toBe('canceled');
    expect(await row.getByRole('link', { name: 'hotfix' }).count()).toBe(1);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('runs-list-phone');
  });
});
