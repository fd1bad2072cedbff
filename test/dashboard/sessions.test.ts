// The sessions pages in Chromium: the list, and a session's replay timeline in sequence with type
// filters, tokens, cost, trust score and findings; a long session is paged from the API as it scrolls,
// with only a window of its rows in the DOM, and a page read before the newest events is read again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { event, ingest, seedSandbox } from '../helpers/sessions.js';
import { launchBrowser, openDashboard, PHONE, saveScreenshot, seriousAccessibilityViolations, type BrowserHandle } from './helpers/browser.js';
import { signInOnTeamPlan } from './helpers/team-account.js';

describe('dashboard sessions in Chromium', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite'), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists the session and replays its events in order, filtered by type, with tokens, cost, trust and findings', async () => {
    const d = await openDashboard(browser);
    const { key, accountId } = await signInOnTeamPlan(d, t);
    const sandboxId = await seedSandbox(t, accountId);
    const events = [
      event(sandboxId, 'agent-run-1', 'lifecycle', { status: 'started' }, { meta: { agent_type: 'coder' } }),
      event(sandboxId, 'agent-run-1', 'llm_call', { model: 'gpt-4o', provider: 'openai', tokens_in: 1200, tokens_out: 300, cost_usd: 0.25 }),
      event(sandboxId, 'agent-run-1', 'command', { command: 'ls -la', exit_code: 0 }),
      event(sandboxId, 'agent-run-1', 'error', { message: 'the build broke' }),
      event(sandboxId, 'agent-run-1', 'network', { allowed: false, host: 'evil.example.com' }),
      event(sandboxId, 'agent-run-1', 'lifecycle', { status: 'completed' }),
    ];
    expect((await ingest(t, key, events)).body).toMatchObject({ accepted: 6, errors: 0 });
    const session = (await t.request('GET', '/v1/sessions/agent-run-1', { token: key })).body;
    expect(session).toMatchObject({ status: 'completed', agent_type: 'coder', tokens_in: 1200, tokens_out: 300 });
    expect(session.trust_score).toBeLessThan(100);

    await d.page.goto(`${t.url}/sessions`);
    const row = d.page.getByRole('row', { name: /agent-run-1/ });
    await expect.poll(() => row.textContent()).toContain('coder');
    expect(await row.textContent()).toContain('1,200 / 300');
    expect(await row.textContent()).toContain(String(session.trust_score));
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await saveScreenshot(d.page, 'sessions-list');

    const p = d;
    await p.page.getByRole('link', { name: 'agent-run-1' }).click();
    await p.page.waitForURL(/\/sessions\/agent-run-1$/);
    const rows = p.page.getByTestId('replay-event');
    await expect.poll(() => rows.count()).toBe(6);
    expect(await rows.evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-sequence'))))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await rows.nth(1).textContent()).toContain('gpt-4o');
    expect(await p.page.getByTestId('session-tokens').textContent()).toBe('1,200 / 300');
    expect(await p.page.getByTestId('session-cost').textContent()).toContain('$0.25');
    expect(await p.page.getByTestId('session-trust').textContent()).toBe(String(session.trust_score));
    const summary = (await t.request('GET', '/v1/sessions/agent-run-1/replay/summary', { token: key })).body;
    for (const finding of summary.findings) expect(await p.page.getByRole('table').textContent()).toContain(finding.rule);
    expect(await rows.nth(3).textContent()).toContain('agent_error');

    await p.page.getByRole('button', { name: 'error (1)' }).click();
    await expect.poll(() => rows.evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-sequence'))))).toEqual([4]);
    expect(await rows.first().textContent()).toContain('the build broke');
    await rows.first().getByRole('button').click();
    expect(await p.page.getByTestId('replay-details').textContent()).toContain('"message": "the build broke"');
    await p.page.getByRole('button', { name: 'All (6)' }).click();
    await expect.poll(() => rows.count()).toBe(6);
    expect(await seriousAccessibilityViolations(p.page)).toEqual([]);
    await p.finish('session-replay');
  });

  it('pages a long session from the API as it scrolls, keeping only a window of rows in the DOM', async () => {
    const d = await openDashboard(browser);
    const { key, accountId } = await signInOnTeamPlan(d, t);
    const sandboxId = await seedSandbox(t, accountId);
    const total = 3000;
    for (let batch = 0; batch < total / 1000; batch++) {
      const events = Array.from({ length: 1000 }, (_, i) => event(sandboxId, 'long-run', 'tool_call', { tool: `step-${batch * 1000 + i + 1}` }));
      expect((await ingest(t, key, events)).body.accepted).toBe(1000);
    }
    const replayPages: string[] = [];
    d.page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/v1/sessions/long-run/replay') replayPages.push(url.searchParams.get('after_seq') ?? '');
    });
    await d.page.goto(`${t.url}/sessions/long-run`);
    const list = d.page.getByTestId('replay-list');
    const rows = d.page.getByTestId('replay-event');
    await expect.poll(() => rows.first().getAttribute('data-sequence')).toBe('1');
    expect(await rows.first().textContent()).toContain('step-1');
    const windowSize = await rows.count();
    expect(windowSize).toBeGreaterThan(5);
    expect(windowSize).toBeLessThan(100);
    expect(replayPages).toEqual(['0']);

    await list.evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
    await expect.poll(() => rows.evaluateAll((els) => els.some((el) => el.getAttribute('data-sequence') === '1500'))).toBe(true);
    await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect.poll(() => rows.last().getAttribute('data-sequence')).toBe(String(total));
    expect(await rows.last().textContent()).toContain(`step-${total}`);
    expect(await rows.count()).toBeLessThan(100);
    expect(replayPages.length).toBeGreaterThan(1);
    expect(replayPages).toContain('2500');
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('session-replay-long');
  });

  it('shows a replay page that failed to load, and loads it on Try again', async () => {
    const d = await openDashboard(browser, { allowProblems: /ERR_CONNECTION_FAILED/ });
    const { key, accountId } = await signInOnTeamPlan(d, t);
    const sandboxId = await seedSandbox(t, accountId);
    await ingest(t, key, [event(sandboxId, 'flaky-run', 'command', { command: 'make', exit_code: 0 })]);
    let failing = true;
    let refused = 0;
    await d.page.route(/\/v1\/sessions\/flaky-run\/replay\?/, async (route) => {
      if (!failing) return route.continue();
      refused++;
      return route.abort('connectionfailed');
    });
    await d.page.goto(`${t.url}/sessions/flaky-run`);
    const alert = d.page.getByRole('alert');
    const rows = d.page.getByTestId('replay-event');
    await expect.poll(() => alert.isVisible()).toBe(true);
    expect(await rows.count()).toBe(0);
    // The page may already be retrying on its own (the summary landing counts the events), so the button
    // is pressed until a press is seen to ask again, and then until the events show.
    const pressTryAgain = () =>
      alert
        .getByRole('button', { name: 'Try again' })
        .click({ timeout: 1000 })
        .catch(() => undefined);
    const before = refused;
    await expect.poll(async () => (await pressTryAgain(), refused)).toBeGreaterThan(before);
    expect(await alert.isVisible()).toBe(true);
    failing = false;
    await expect.poll(async () => ((await alert.isVisible()) && (await pressTryAgain()), rows.count())).toBe(1);
    expect(await d.page.getByTestId('replay-event').textContent()).toContain('make');
    await d.finish('session-replay-retry');
  });

  it('shows the events that arrived while the replay page was on its way', async () => {
    const d = await openDashboard(browser);
    const { key, accountId } = await signInOnTeamPlan(d, t);
    const sandboxId = await seedSandbox(t, accountId);
    const step = (n: number) => event(sandboxId, 'late-run', 'tool_call', { tool: `late-step-${n}` });
    await ingest(t, key, [step(1), step(2)]);
    // The first replay page is read by the server at once but reaches the page only once three more
    // events have been counted by the summary the page polls.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    await d.page.route(/\/v1\/sessions\/late-run\/replay\?/, async (route) => {
      if (held++ > 0) return route.continue();
      const response = await route.fetch();
      await released;
      await route.fulfill({ response });
    });
    const counted = (total: number) =>
      d.page.waitForResponse(async (response) => new URL(response.url()).pathname === '/v1/sessions/late-run/replay/summary' && (await response.json()).event_count === total, {
        timeout: 40_000,
      });
    const two = counted(2);
    await d.page.goto(`${t.url}/sessions/late-run`);
    await two;
    await expect.poll(() => held).toBe(1);
    const five = counted(5);
    await ingest(t, key, [step(3), step(4), step(5)]);
    await five;
    release();
    const rows = d.page.getByTestId('replay-event');
    await expect.poll(() => rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-sequence'))), { timeout: 15_000 }).toEqual(['1', '2', '3', '4', '5']);
    expect(await rows.last().textContent()).toContain('late-step-5');
    expect(held).toBe(2);
    await d.finish('session-replay-late-events');
  });

  it('reads on a phone', async () => {
    const d = await openDashboard(browser, { viewport: PHONE });
    const { key, accountId } = await signInOnTeamPlan(d, t);
    const sandboxId = await seedSandbox(t, accountId);
    await ingest(t, key, [
      event(sandboxId, 'phone-run', 'llm_call', { model: 'gpt-4o', tokens_in: 10, tokens_out: 5 }),
      event(sandboxId, 'phone-run', 'command', { command: 'npm test', exit_code: 1 }),
    ]);
    await d.page.goto(`${t.url}/sessions/phone-run`);
    await expect.poll(() => d.page.getByTestId('replay-event').count()).toBe(2);
    expect(await d.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('session-replay-phone');
  });
});
