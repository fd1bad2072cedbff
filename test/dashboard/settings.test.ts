// The settings pages in Chromium against the real server: an API key created in the page is shown once,
// works against the API, is listed without its value after a reload, and once revoked in the page the
// API refuses it; secrets are set and deleted by name, their value never shown back; the account page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, openDashboard, PHONE, seriousAccessibilityViolations, signIn, type BrowserHandle } from './helpers/browser.js';

describe('dashboard settings in Chromium', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite'), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('creates a key shown once, which works; lists it without its value after a reload; revoking it makes the API refuse it', async () => {
    const d = await openDashboard(browser);
    const account = await signIn(d, t);
    await d.page.goto(`${t.url}/settings`);
    await d.page.waitForURL(`${t.url}/settings/keys`);
    await d.page.getByLabel('Name').fill('deploy bot');
    await d.page.getByLabel('Scope').selectOption('read');
    await d.page.getByLabel('Expires').selectOption('30');
    await d.page.getByRole('button', { name: 'Create key' }).click();
    const key = (await d.page.getByTestId('created-api-key').textContent())!;
    expect(key).toMatch(/^svc_sk_[A-Za-z0-9]{43}$/);
    t.secrets.add(key);
    // Before the copy: the shared CopyButton's "Copied" text does not match its accessible name.
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.page.getByRole('button', { name: `Copy key ${key}` }).click();
    await expect.poll(() => d.page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await d.finish('settings-key-created');

    expect((await t.request('GET', '/v1/sessions', { token: key })).status).toBe(200);
    expect((await t.request('GET', '/v1/account', { token: key })).status).toBe(403);
    const listed = await t.request('GET', '/v1/account/keys', { token: account.key });
    const created = listed.body.find((row: { name: string }) => row.name === 'deploy bot');
    expect(created).toMatchObject({ scope: 'read', expires_at: expect.any(String) });
    expect(new Date(created.expires_at).getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const again = await openDashboard(browser, { allowProblems: /status of 401/ });
    await signIn(again, t, account);
    await again.page.goto(`${t.url}/settings/keys`);
    const row = again.page.getByRole('row', { name: /deploy bot/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(created.prefix);
    expect(await again.page.content()).not.toContain(key);
    expect(await again.page.getByTestId('created-api-key').count()).toBe(0);

    await again.page.getByRole('button', { name: 'Revoke key deploy bot' }).click();
    await again.page.getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await t.request('GET', '/v1/sessions', { token: key })).status).toBe(401);
    expect((await t.request('GET', '/v1/account/keys', { token: account.key })).body.map((k: { name: string }) => k.name)).not.toContain('deploy bot');
    expect(await seriousAccessibilityViolations(again.page)).toEqual([]);
    await again.finish('settings-keys');
  });

  it('sets a secret by name without showing its value back, and deletes it', async () => {
    const d = await openDashboard(browser);
    const account = await signIn(d, t);
    await d.page.goto(`${t.url}/settings/secrets`);
    await d.page.getByText('No secrets yet.').waitFor();
    const value = 'very-private-value-7f3a91';
    t.secrets.add(value);
    await d.page.getByLabel('Name').fill('DEPLOY_TOKEN');
    await d.page.getByLabel('Value').fill(value);
    await d.page.getByRole('button', { name: 'Save secret' }).click();
    await d.page.getByRole('cell', { name: 'DEPLOY_TOKEN', exact: true }).waitFor();
    expect(await d.page.getByLabel('Value').inputValue()).toBe('');
    expect(await d.page.content()).not.toContain(value);
    expect((await t.request('GET', '/v1/secrets', { token: account.key })).body.map((s: { name: string }) => s.name)).toEqual(['DEPLOY_TOKEN']);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

    await d.page.getByRole('button', { name: 'Delete secret DEPLOY_TOKEN' }).click();
    await d.page.getByRole('button', { name: 'Yes, delete' }).click();
    await d.page.getByText('No secrets yet.').waitFor();
    expect((await t.request('GET', '/v1/secrets', { token: account.key })).body).toEqual([]);
    await d.finish('settings-secrets');
  });

  it('shows the account on a phone-sized screen', async () => {
    const d = await openDashboard(browser, { viewport: PHONE });
    const account = await signIn(d, t);
    await d.page.goto(`${t.url}/settings/account`);
    await d.page.getByText(account.email, { exact: true }).first().waitFor();
    const me = (await t.request('GET', '/v1/account', { token: account.key })).body;
    expect(await d.page.locator('dl.facts').textContent()).toContain(me.id);
    expect(await d.page.locator('dl.facts').textContent()).toContain('free');
    expect(await d.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('settings-account-phone');
  });
});
