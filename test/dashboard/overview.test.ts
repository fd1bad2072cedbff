// The overview in Chromium on a server without a sandbox runtime (as an api node is): the sandbox card
// counts the sandboxes the database holds, and the usage, open alerts and recent runs show what the API holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, startRun } from '../helpers/pipelines.js';
import { seedSandbox } from '../helpers/sessions.js';
import { launchBrowser, openDashboard, PHONE, seriousAccessibilityViolations, type BrowserHandle } from './helpers/browser.js';
import { signInOnTeamPlan } from './helpers/team-account.js';

describe('dashboard overview in Chromium', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite'), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows open alerts, recent runs and usage created through the API, and counts the sandboxes without a runtime here', async () => {
    const d = await openDashboard(browser);
    const { key, accountId } = await signInOnTeamPlan(d, t);
    await seedSandbox(t, accountId);
    for (const sandboxId of ['sbx_a', 'sbx_b', 'sbx_c'])
      await t.services.alerts.raise({ accountId, type: 'sandbox_error', resource: { kind: 'sandbox', id: sandboxId }, sandboxId, message: `sandbox ${sandboxId} failed` });
    const resolvedOne = (await t.request('GET', '/v1/alerts', { token: key })).body[0];
    await t.request('POST', `/v1/alerts/${resolvedOne.id}/resolve`, { token: key });
    const pipeline = await createPipeline(t, key, { name: 'release-train', stages: [{ name: 'ship-it', type: 'await_approval', config: { message: 'Ship?', channels: ['dashboard'] } }] });
    const run = await startRun(t, key, pipeline.id);
    const subscription = (await t.request('GET', '/v1/billing/subscription', { token: key })).body;

    await d.page.goto(`${t.url}/`);
    await expect.poll(() => d.page.getByTestId('open-alerts').textContent()).toBe('2');
    await expect.poll(() => d.page.getByTestId('running-count').textContent()).toBe('1');
    expect(await d.page.getByTestId('paused-count').textContent()).toBe('0');
    const runLink = d.page.getByTestId('recent-runs').getByRole('link', { name: 'release-train' });
    await expect.poll(() => runLink.getAttribute('href')).toBe(`/runs/${run.id}`);
    expect(await d.page.getByTestId('compute-hours').textContent()).toBe(subscription.usage.compute_hours.toFixed(2));
    expect(await d.page.getByRole('region', { name: 'Usage this month' }).textContent()).toContain(`of ${subscription.limits.compute_hours_per_month} compute hours`);
    expect(await d.page.getByRole('link', { name: 'Open alerts' }).getAttribute('href')).toBe('/alerts');
    expect(await d.page.getByRole('link', { name: 'Sandboxes', exact: true }).first().getAttribute('href')).toBe('/sandboxes');
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('overview');
  });

  it('reads on a phone', async () => {
    const d = await openDashboard(browser, { viewport: PHONE });
    await signInOnTeamPlan(d, t);
    await d.page.goto(`${t.url}/`);
    await expect.poll(() => d.page.getByTestId('open-alerts').textContent()).toBe('0');
    await expect.poll(() => d.page.getByText('No runs yet.').isVisible()).toBe(true);
    expect(await d.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('overview-phone');
  });
});
