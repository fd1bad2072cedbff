import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, openDashboard, PHONE, seriousAccessibilityViolations, type BrowserHandle } from './helpers/browser.js';

describe('dashboard sign-in in Chromium', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite'), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs up, shows the first API key once, and keeps the session out of script-readable storage', async () => {
    const d = await openDashboard(browser);
    await d.page.goto(`${t.url}/signup`);
    await d.page.getByLabel('Email').fill('newcomer@example.com');
    await d.page.getByLabel(/Password/).fill('a long enough password');
    await d.page.getByRole('button', { name: 'Sign up' }).click();
    const key = await d.page.getByTestId('new-api-key').textContent();
    expect(key).toMatch(/^svc_sk_[A-Za-z0-9]{43}$/);
    t.secrets.add(key!);
    const account = await t.request('GET', '/v1/account', { token: key! });
    expect(account.body.email).toBe('newcomer@example.com');

    const storage = await d.page.evaluate(() => ({ local: JSON.stringify(localStorage), session: JSON.stringify(sessionStorage), cookie: document.cookie }));
    expect(storage.local).not.toContain('svc_');
    expect(storage.session).not.toContain('svc_');
    expect(storage.cookie).toBe('');
    const cookies = await d.context.cookies();
    expect(cookies.find((c) => c.name === 'paddock_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    await d.page.getByRole('link', { name: 'Continue to the dashboard' }).click();
    await expect.poll(() => d.page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    await d.finish('sign-up');
  });

  it('shows the API message for a wrong password, signs in, returns to the page asked for, and signs out', async () => {
    const account = await t.signup();
    const d = await openDashboard(browser, { allowProblems: /status of 401/ });
    await d.page.goto(`${t.url}/settings`);
    await d.page.waitForURL(/\/login\?next=%2Fsettings/);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.page.getByLabel('Email').fill(account.email);
    await d.page.getByLabel('Password').fill('not the password');
    await d.page.getByRole('button', { name: 'Sign in' }).click();
    const apiAnswer = await t.request('POST', '/login', { body: { email: account.email, password: 'not the password' } });
    await expect.poll(() => d.page.getByRole('alert').textContent()).toBe(apiAnswer.body.error);

    await d.page.getByLabel('Password').fill(account.password);
    await d.page.getByRole('button', { name: 'Sign in' }).click();
    await d.page.waitForURL(`${t.url}/settings`);
    await d.page.getByRole('button', { name: 'Sign out' }).click();
    await d.page.waitForURL(/\/login/);
    await d.page.goto(`${t.url}/`);
    await d.page.waitForURL(/\/login/);
    await d.finish('sign-in-and-out');
  });

  it('is usable on a phone-sized screen: the menu folds and opens', async () => {
    const account = await t.signup();
    const d = await openDashboard(browser, { viewport: PHONE });
    await d.context.request.post(`${t.url}/v1/dashboard/session`, { data: { email: account.email, password: account.password } });
    await d.page.goto(`${t.url}/`);
    const nav = d.page.getByRole('navigation', { name: 'Main' });
    await expect.poll(() => nav.isVisible()).toBe(false);
    await d.page.getByRole('button', { name: 'Menu' }).click();
    await expect.poll(() => nav.isVisible()).toBe(true);
    expect(await d.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await d.finish('phone-menu');
  });
});
