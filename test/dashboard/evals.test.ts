import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, openDashboard, PHONE, seriousAccessibilityViolations, signIn, type BrowserHandle } from './helpers/browser.js';

const scenario = (name: string) => ({
  name,
  description: `Checks ${name}`,
  template: 'minimal',
  command: `echo ${name}`,
  checks: [
    { type: 'exit_code', equals: 0 },
    { type: 'output_contains', value: name, weight: 2 },
  ],
});

describe('dashboard evals in Chromium', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite'), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the empty lists, then the scenarios and suites created through the API with their details', async () => {
    const d = await openDashboard(browser);
    const { key } = await signIn(d, t);
    await d.page.goto(`${t.url}/evals`);
    await d.page.getByText('No scenarios yet').waitFor();

    const greet = await t.request('POST', '/v1/evals/scenarios', { token: key, body: scenario('greets') });
    const count = await t.request('POST', '/v1/evals/scenarios', { token: key, body: scenario('counts') });
    expect([greet.status, count.status]).toEqual([201, 201]);
    const suite = await t.request('POST', '/v1/evals/suites', { token: key, body: { name: 'smoke', description: 'Both', scenario_ids: [count.body.id, greet.body.id] } });
    expect(suite.status).toBe(201);

    await d.page.reload();
    await d.page.getByRole('link', { name: 'greets' }).waitFor();
    expect(await d.page.getByRole('link', { name: 'counts' }).count()).toBe(1);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    await d.page.getByRole('link', { name: 'greets' }).click();
    await d.page.getByRole('heading', { name: 'Scenario greets' }).waitFor();
    await d.page.getByText('echo greets').waitFor();
    await d.page.getByText('No results yet').waitFor();
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    await d.page.getByRole('link', { name: 'Suites' }).click();
    await d.page.getByRole('link', { name: 'smoke' }).click();
    await d.page.getByRole('heading', { name: 'Suite smoke' }).waitFor();
    const order = d.page.locator('.suite-scenarios li');
    await expect.poll(() => order.allTextContents()).toEqual(['counts', 'greets']);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('eval-suite');
  });

  it('lists suites on a phone without sideways scrolling of the page', async () => {
    const d = await openDashboard(browser, { viewport: PHONE });
    const { key } = await signIn(d, t);
    const created = await t.request('POST', '/v1/evals/scenarios', { token: key, body: scenario('phone') });
    await t.request('POST', '/v1/evals/suites', { token: key, body: { name: 'pocket', scenario_ids: [created.body.id] } });
    await d.page.goto(`${t.url}/evals/suites`);
    await d.page.getByRole('link', { name: 'pocket' }).waitFor();
    expect(await d.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('eval-suites-phone');
  });
});
