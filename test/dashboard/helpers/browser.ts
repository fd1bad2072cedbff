// Drives Debian's Chromium with playwright-core against the real server (never a downloaded browser).
// Every page a test opens is watched: a console error, an uncaught exception or a Content-Security-Policy
// refusal fails the test, and `finish` saves a screenshot to .test-results/screenshots/. Playwright's
// launch gives every browser a fresh temporary profile (user-data dir) and removes it on close.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestApp } from '../../helpers/app.js';

const CHROMIUM = process.env.PADDOCK_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = path.resolve('.test-results/screenshots');
const require = createRequire(import.meta.url);

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface BrowserHandle {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<BrowserHandle> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: npm run test:all installs Debian's chromium package`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Preview hosts (<sandbox>-<port>.localhost…) resolve to the test server like the real DNS would.
      '--host-resolver-rules=MAP *.localhost 127.0.0.1',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

export interface DashboardPage {
  context: BrowserContext;
  page: Page;
  /** Problems the page reported (console errors, exceptions, CSP refusals); `finish` fails on any. */
  problems: string[];
  /** Saves a screenshot named after the test, fails on reported problems, closes the context. */
  finish(name: string): Promise<void>;
}

export async function openDashboard(handle: BrowserHandle, options: { viewport?: { width: number; height: number }; allowProblems?: RegExp } = {}): Promise<DashboardPage> {
  const context = await handle.browser.newContext({ viewport: options.viewport ?? DESKTOP, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  const problems: string[] = [];
  const note = (text: string) => {
    if (!options.allowProblems?.test(text)) problems.push(text);
  };
  page.on('console', (message) => {
    // A failed request is reported as a console error too; the tests that expect a 4xx allow it.
    if (message.type() === 'error') note(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => note(`exception: ${error.message}`));
  return {
    context,
    page,
    problems,
    async finish(name) {
      await saveScreenshot(page, name);
      await context.close();
      if (problems.length) throw new Error(`the page reported problems:\n${problems.join('\n')}`);
    },
  };
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name.replace(/[^a-z0-9-]+/gi, '-').toLowerCase()}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Signs the browser in through the API (the context keeps the cookie); returns the account's key. */
export async function signIn(dashboard: DashboardPage, app: TestApp, account?: { email: string; password: string }): Promise<{ key: string; email: string; password: string }> {
  const created = account ? { ...account, key: '' } : await app.signup();
  const answer = await dashboard.context.request.post(`${app.url}/v1/dashboard/session`, { data: { email: created.email, password: created.password } });
  if (answer.status() !== 200) throw new Error(`sign-in answered ${answer.status()}: ${await answer.text()}`);
  return { key: created.key, email: created.email, password: created.password };
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core on the page as it is now: the serious and critical violations (WCAG 2.1 A/AA rules). */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over the DevTools protocol, so the page's CSP (script-src 'self') does not block it.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
