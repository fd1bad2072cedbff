// The alert pages in Chromium: an alert raised by a public action (a session's trust falling below the
// rule's threshold) is resolved in the page, and the API and the bell agree; a rule and the channel config
// changed in the page read back from the API; the notification inbox marks all read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { event, ingest, seedSandbox } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait-for.js';
import { launchBrowser, openDashboard, PHONE, seriousAccessibilityViolations, type BrowserHandle } from './helpers/browser.js';
import { signInOnTeamPlan } from './helpers/team-account.js';

describe('dashboard alerts in Chromium', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite'), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('resolves an alert raised by a low trust score: the API shows it resolved and the bell count drops', async () => {
    const d = await openDashboard(browser);
    const { key, accountId } = await signInOnTeamPlan(d, t);
    const rules = (await t.request('GET', '/v1/alerts/rules', { token: key })).body;
    const trustLow = rules.find((rule: any) => rule.type === 'trust_low');
    expect((await t.request('PUT', `/v1/alerts/rules/${trustLow.id}`, { token: key, body: { threshold: 99 } })).status).toBe(200);
    const sandboxId = await seedSandbox(t, accountId);
    await ingest(t, key, [event(sandboxId, 'shaky-agent', 'error', { message: 'tool crashed' })]);
    const [raised] = await waitFor('the trust_low alert', async () => {
      const open = (await t.request('GET', '/v1/alerts?resolved=false', { token: key })).body;
      return open.length > 0 && open;
    });
    expect(raised).toMatchObject({ type: 'trust_low', resolved: false });
    expect((await t.request('GET', '/v1/notifications/unread-count', { token: key })).body).toEqual({ count: 1 });

    await d.page.goto(`${t.url}/alerts`);
    const bell = d.page.getByTestId('bell');
    await expect.poll(() => bell.getAttribute('aria-label')).toBe('Notifications: 1 unread');
    const row = d.page.getByTestId('alert-row');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain(raised.message);
    expect(await row.getByRole('link', { name: 'session shaky-agent' }).getAttribute('href')).toBe('/sessions/shaky-agent');
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    await row.getByRole('button', { name: /^Resolve trust_low alert/ }).click();
    await expect.poll(() => bell.getAttribute('aria-label')).toBe('Notifications: 0 unread');
    await expect.poll(() => d.page.getByText('No open alerts.').isVisible()).toBe(true);
    const after = (await t.request('GET', `/v1/alerts/${raised.id}`, { token: key })).body;
    expect(after).toMatchObject({ resolved: true, resolved_at: expect.any(String) });
    expect((await t.request('GET', '/v1/notifications/unread-count', { token: key })).body).toEqual({ count: 0 });

    await d.page.getByRole('button', { name: 'Resolved' }).click();
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('resolved');
    await d.finish('alerts-resolved');
  });

  it('changes a rule in the page and the API reads it back', async () => {
    const d = await openDashboard(browser, { allowProblems: /status of 400/ });
    const { key } = await signInOnTeamPlan(d, t);
    await d.page.goto(`${t.url}/alerts/rules`);
    const threshold = d.page.getByLabel('budget_warning threshold (percent)');
    await expect.poll(() => threshold.inputValue()).toBe('80');
    await threshold.fill('90');
    await d.page.getByLabel('budget_warning via Chat A (Slack-style)').uncheck();
    await d.page.getByLabel('idle_timeout enabled').uncheck();
    await d.page.getByRole('button', { name: 'Save budget_warning' }).click();
    await d.page.getByRole('button', { name: 'Save idle_timeout' }).click();
    await expect.poll(() => d.page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(2);

    const rules = (await t.request('GET', '/v1/alerts/rules', { token: key })).body;
    expect(rules.find((rule: any) => rule.type === 'budget_warning')).toMatchObject({ threshold: 0.9, channels: ['email', 'chat_b', 'webhook'], enabled: true });
    expect(rules.find((rule: any) => rule.type === 'idle_timeout')).toMatchObject({ enabled: false });

    // The API's validation message is shown beside the rule.
    await d.page.getByLabel('trust_low threshold (trust score)').fill('150');
    await d.page.getByRole('button', { name: 'Save trust_low' }).click();
    await expect.poll(() => d.page.getByRole('alert').textContent()).toContain('between 0 and 100');
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('alert-rules');
  });

  it('configures a notification channel in the page and the API reads it back', async () => {
    const d = await openDashboard(browser, { viewport: PHONE, allowProblems: /status of 400/ });
    const { key } = await signInOnTeamPlan(d, t);
    await d.page.goto(`${t.url}/alerts/channels`);
    await d.page.getByLabel('Send alerts by email').check();
    await d.page.getByLabel('Email address').fill('oncall@example.com');
    await d.page.getByRole('button', { name: 'Save channels' }).click();
    await expect.poll(() => d.page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    const config = (await t.request('GET', '/v1/notifications/config', { token: key })).body;
    expect(config.channels.email).toEqual({ enabled: true, address: 'oncall@example.com' });
    expect(config.channels.webhook.enabled).toBe(false);

    // A private webhook URL is refused by the API, which names the problem.
    await d.page.getByLabel('Send alerts to a webhook').check();
    await d.page.getByLabel('Webhook URL', { exact: true }).fill('https://127.0.0.1/hook');
    await d.page.getByRole('button', { name: 'Save channels' }).click();
    await expect.poll(() => d.page.getByRole('alert').isVisible()).toBe(true);
    expect((await t.request('GET', '/v1/notifications/config', { token: key })).body.channels.webhook.enabled).toBe(false);

    const secretBefore = config.channels.webhook.secret;
    await d.page.getByRole('button', { name: 'Rotate secret' }).click();
    await expect.poll(() => d.page.getByRole('status').filter({ hasText: 'Secret rotated' }).count()).toBe(1);
    await expect.poll(async () => (await t.request('GET', '/v1/notifications/config', { token: key })).body.channels.webhook.secret).not.toBe(secretBefore);
    expect(await d.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('alert-channels-phone');
  });

  it('lists notifications read and unread and marks them all read', async () => {
    const d = await openDashboard(browser);
    const { key, accountId } = await signInOnTeamPlan(d, t);
    for (const sandboxId of ['sbx_one', 'sbx_two'])
      await t.services.alerts.raise({ accountId, type: 'sandbox_error', resource: { kind: 'sandbox', id: sandboxId }, sandboxId, message: `sandbox ${sandboxId} failed` });
    await d.page.goto(`${t.url}/alerts/notifications`);
    const items = d.page.getByTestId('notification');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.filter({ hasText: 'unread' }).count()).toBe(2);
    await d.page.getByRole('button', { name: 'Unread' }).click();
    await expect.poll(() => items.count()).toBe(2);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.page.getByRole('button', { name: 'Mark all read' }).click();
    await expect.poll(() => d.page.getByText('Nothing unread.').isVisible()).toBe(true);
    await expect.poll(() => d.page.getByTestId('bell').getAttribute('aria-label')).toBe('Notifications: 0 unread');
    expect((await t.request('GET', '/v1/notifications/unread-count', { token: key })).body).toEqual({ count: 0 });
    await d.page.getByRole('button', { name: 'All', exact: true }).click();
    await expect.poll(() => items.count()).toBe(2);
    await d.finish('notifications');
  });
});
