// The billing page in Chromium against the real server (manual provider): the plan, status, limits and
// usage chart of the account; a plan change requested by a user in the page and approved in the page by
// the server's operator (its first account), after which the user's page shows the new plan; the notices
// of the links the server hands out (?request=…, ?checkout=…).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, openDashboard, PHONE, seriousAccessibilityViolations, signIn, type BrowserHandle } from './helpers/browser.js';

describe('dashboard billing in Chromium', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  let operator: { key: string; email: string; password: string };
  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite'), launchBrowser()]);
    operator = await t.signup();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the plan, its limits and the usage chart with one bar per day of the period', async () => {
    const d = await openDashboard(browser);
    const user = await signIn(d, t);
    await d.page.goto(`${t.url}/billing`);
    await expect.poll(() => d.page.getByTestId('current-plan').textContent()).toBe('free');
    const subscription = (await t.request('GET', '/v1/billing/subscription', { token: user.key })).body;
    expect(subscription.operator).toBe(false);
    const facts = (await d.page.locator('dl.facts').textContent())!;
    expect(facts).toContain(`${subscription.limits.requests_per_minute}`);
    expect(facts).toContain('active');

    const usage = (await t.request('GET', '/v1/billing/usage', { token: user.key })).body;
    const chart = d.page.getByTestId('usage-chart');
    await chart.waitFor();
    expect(await chart.locator('g[data-date]').evaluateAll((bars) => bars.map((bar) => bar.getAttribute('data-date')))).toEqual(usage.days.map((day: { date: string }) => day.date));
    expect(await chart.locator('title').first().textContent()).toContain(`${usage.from} to ${usage.to}`);
    await d.page.getByText('Usage by day as a table').click();
    expect(await d.page.getByRole('rowheader').allTextContents()).toEqual(usage.days.map((day: { date: string }) => day.date));
    expect(await d.page.getByRole('heading', { name: 'Plan requests to decide' }).count()).toBe(0);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('billing');
  });

  it('a user requests a plan in the page, the operator approves it in the page, and the user then sees the new plan', async () => {
    const userPage = await openDashboard(browser);
    const user = await signIn(userPage, t);
    await userPage.page.goto(`${t.url}/billing`);
    await userPage.page.getByRole('button', { name: 'Request pro' }).click();
    await userPage.page.waitForURL(/\/billing\?request=preq_/);
    const requestId = new URL(userPage.page.url()).searchParams.get('request')!;
    await expect.poll(() => userPage.page.getByTestId('request-notice').textContent()).toContain('waiting for an operator');
    const pending = (await t.request('GET', '/v1/billing/subscription', { token: user.key })).body;
    expect(pending).toMatchObject({ plan: 'free', status: 'pending', pending_request: { id: requestId, plan: 'pro' } });
    expect(await seriousAccessibilityViolations(userPage.page)).toEqual([]);

    const operatorPage = await openDashboard(browser);
    await signIn(operatorPage, t, operator);
    await operatorPage.page.goto(`${t.url}/billing`);
    const row = operatorPage.page.getByTestId(`plan-request-${requestId}`);
    await expect.poll(() => row.textContent()).toContain(user.email);
    expect(await seriousAccessibilityViolations(operatorPage.page)).toEqual([]);
    await operatorPage.page.getByRole('button', { name: `Approve pro for ${user.email}` }).click();
    await expect.poll(() => row.count()).toBe(0);
    await operatorPage.finish('billing-operator');
    expect((await t.request('GET', '/v1/billing/subscription', { token: user.key })).body).toMatchObject({ plan: 'pro', status: 'active', pending_request: null });

    await userPage.page.reload();
    await expect.poll(() => userPage.page.getByTestId('current-plan').textContent()).toBe('pro');
    expect(await userPage.page.getByTestId('request-notice').textContent()).toContain('no longer waiting: you are on the pro plan');
    await userPage.finish('billing-approved');
  });

  it('says how a Stripe checkout ended, on a phone-sized screen', async () => {
    const d = await openDashboard(browser, { viewport: PHONE });
    await signIn(d, t);
    await d.page.goto(`${t.url}/billing?checkout=canceled`);
    await d.page.getByText('Checkout was canceled').waitFor();
    await d.page.goto(`${t.url}/billing?checkout=success`);
    await d.page.getByText('Checkout finished').waitFor();
    await d.page.getByTestId('usage-chart').waitFor();
    expect(await d.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('billing-phone');
  });
});
