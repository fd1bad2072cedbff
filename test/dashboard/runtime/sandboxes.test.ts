// The sandbox pages in Chromium against a real server with runc sandboxes: the create form (and its
// API refusals), the virtualised list, pause / resume / destroy, previews with and without a password,
// snapshots and the activity tab.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';
import { startNodeServerSandbox } from '../../helpers/node-server-sandbox.js';
import { sandboxRecord } from '../../helpers/sandbox-record.js';
import { launchBrowser, openDashboard, PHONE, seriousAccessibilityViolations, signIn, type BrowserHandle, type DashboardPage } from '../helpers/browser.js';

const SERVER = `import http from 'node:http';
http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<title>served</title><h1>hello from the sandbox</h1>'); }).listen(3000, '0.0.0.0');`;

describe('sandbox pages in Chromium (runc)', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  let account: { key: string; email: string; password: string; account: { id: string } };
  let formSandboxId: string;

  const api = (method: string, path: string, body?: object) => t.request(method, path, { token: account.key, body });
  async function open(path: string, options: { viewport?: { width: number; height: number }; allowProblems?: RegExp } = {}): Promise<DashboardPage> {
    const d = await openDashboard(browser, options);
    await signIn(d, t, account);
    await d.page.goto(`${t.url}${path}`);
    return d;
  }

  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite', {}, { runtime: 'runc' }), launchBrowser()]);
    const created = await t.signup();
    // Team plan: these tests make more requests than the free plan's 60 a minute.
    await t.storage.db.updateTable('accounts').set({ plan: 'team' }).where('id', '=', created.account.id).execute();
    account = created;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('creates a sandbox through the form, showing the API message for bad input, and lists it running', async () => {
    const d = await open('/sandboxes/new', { allowProblems: /status of 400/ });
    await d.page.getByLabel('Template').selectOption('minimal');
    await d.page.getByLabel('CPUs').fill('1');
    await d.page.getByLabel('Memory (MB)').fill('64');
    await d.page.getByLabel('Disk (GB)').fill('1');
    await d.page.getByRole('button', { name: 'Add variable' }).click();
    await d.page.getByLabel('Name 1').fill('GREETING');
    await d.page.getByLabel('Value 1').fill('hello');
    await d.page.getByLabel('Idle timeout (seconds)').fill('3600');
    await d.page.getByLabel('Budget (USD)').fill('5');
    await d.page.getByRole('button', { name: 'Create sandbox' }).click();
    const refusal = await api('POST', '/v1/sandboxes', { template: 'minimal', cpus: 1, memory_mb: 64, disk_gb: 1, network_mode: 'full', env: { GREETING: 'hello' }, timeout: 3600, budget: 5 });
    expect(refusal.status).toBe(400);
    await expect.poll(() => d.page.getByRole('alert').textContent()).toBe(refusal.body.error);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.page.screenshot({ path: '.test-results/screenshots/sandbox-create-refused.png', fullPage: true });

    await d.page.getByLabel('Memory (MB)').fill('256');
    await d.page.getByRole('button', { name: 'Create sandbox' }).click();
    await d.page.waitForURL(/\/sandboxes\/sbx_[0-9a-z]+$/);
    formSandboxId = d.page.url().split('/').pop()!;
    const record = (await api('GET', `/v1/sandboxes/${formSandboxId}`)).body;
    expect(record).toMatchObject({ template: 'minimal', cpus: 1, memory_mb: 256, disk_gb: 1, timeout: 3600, budget: 5, env: { GREETING: 'hello' } });
    await expect.poll(() => d.page.getByRole('status', { name: 'Status: running' }).isVisible(), { timeout: 30_000 }).toBe(true);

    await d.page.getByRole('link', { name: 'Sandboxes', exact: true }).first().click();
    await d.page.waitForURL(`${t.url}/sandboxes`);
    const row = d.page.getByTestId('sandbox-row').filter({ hasText: formSandboxId });
    await expect.poll(() => row.textContent()).toContain('running');
    expect(await row.textContent()).toContain('minimal');
    expect(await row.textContent()).toContain('1 CPU · 256 MiB · 1 GB');
    expect(await row.textContent()).toMatch(/\$[0-9.]+ of \$5\.00/);
    const listItem = ((await api('GET', '/v1/sandboxes')).body as { id: string }[]).find((s) => s.id === formSandboxId);
    expect(listItem).toMatchObject({ disk_gb: 1, budget: 5, spend_usd: expect.any(Number) });
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.finish('sandbox-create');
  });

  it('pauses, resumes and (after confirming) destroys a sandbox from its overview', async () => {
    const d = await open(`/sandboxes/${formSandboxId}`);
    await expect.poll(() => d.page.getByRole('status', { name: 'Status: running' }).isVisible()).toBe(true);
    expect(await d.page.getByRole('navigation', { name: 'Sandbox' }).isVisible()).toBe(true);
    expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
    await d.page.screenshot({ path: '.test-results/screenshots/sandbox-overview-running.png', fullPage: true });

    await d.page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => d.page.getByRole('status', { name: 'Status: paused' }).isVisible(), { timeout: 30_000 }).toBe(true);
    expect((await api('GET', `/v1/sandboxes/${formSandboxId}`)).body.status).toBe('paused');
    // The overview counts the account's sandboxes by status (this is its only one).
    const overview = await d.context.newPage();
    await overview.goto(`${t.url}/`);
    await expect.poll(() => overview.getByTestId('paused-count').textContent(), { timeout: 30_000 }).toBe('1');
    expect(await overview.getByTestId('running-count').textContent()).toBe('0');
    await overview.close();

    await d.page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => d.page.getByRole('status', { name: 'Status: running' }).isVisible(), { timeout: 30_000 }).toBe(true);
    expect((await api('GET', `/v1/sandboxes/${formSandboxId}`)).body.status).toBe('running');

    await d.page.getByRole('button', { name: 'Destroy', exact: true }).click();
    await d.page.getByRole('button', { name: 'Cancel' }).click();
    expect((await api('GET', `/v1/sandboxes/${formSandboxId}`)).body.status).toBe('running');
    await d.page.getByRole('button', { name: 'Destroy', exact: true }).click();
    await d.page.getByRole('button', { name: 'Destroy permanently' }).click();
    await expect.poll(() => d.page.getByRole('status', { name: 'Status: destroyed' }).isVisible(), { timeout: 30_000 }).toBe(true);
    expect((await api('GET', `/v1/sandboxes/${formSandboxId}`)).body.status).toBe('destroyed');
    await d.finish('sandbox-overview');
  });

  describe('with a sandbox serving HTTP on port 3000', () => {
    let serverId: string;
    beforeAll(async () => {
      serverId = await startNodeServerSandbox(t, account.key, SERVER, 1, 30_000);
    });

    it('opens the preview in a new tab, then protects it with a password and clears it', async () => {
      const d = await open(`/sandboxes/${serverId}/ports`);
      const link = d.page.getByRole('link', { name: 'Open preview of port 3000' });
      await link.waitFor();
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
      await d.page.screenshot({ path: '.test-results/screenshots/sandbox-ports.png', fullPage: true });

      const [preview] = await Promise.all([d.context.waitForEvent('page'), link.click()]);
      await preview.waitForLoadState();
      expect(await preview.getByRole('heading', { name: 'hello from the sandbox' }).isVisible()).toBe(true);
      await preview.close();

      await d.page.getByLabel('Password for port 3000').fill('preview secret 1');
      await d.page.getByRole('button', { name: 'Set password' }).click();
      await d.page.getByRole('button', { name: 'Remove password' }).waitFor();
      expect((await api('GET', `/v1/sandboxes/${serverId}/ports`)).body[0].protected).toBe(true);
      const [guarded] = await Promise.all([d.context.waitForEvent('page'), link.click()]);
      await guarded.waitForLoadState();
      expect(await guarded.getByRole('heading', { name: 'This preview is protected' }).isVisible()).toBe(true);
      await guarded.getByLabel('Password').fill('preview secret 1');
      await guarded.getByRole('button', { name: 'Continue' }).click();
      await guarded.getByRole('heading', { name: 'hello from the sandbox' }).waitFor();
      await guarded.close();

      await d.page.getByRole('button', { name: 'Remove password' }).click();
      await d.page.getByRole('button', { name: 'Set password' }).waitFor();
      expect((await api('GET', `/v1/sandboxes/${serverId}/ports`)).body[0].protected).toBe(false);
      await d.finish('sandbox-ports');
    });

    it('takes a snapshot, lists it and downloads it through a signed link', async () => {
      const d = await open(`/sandboxes/${serverId}/snapshots`);
      await d.page.getByText('No snapshots of this sandbox yet.').waitFor();
      await d.page.getByLabel('Snapshot name').fill('before the change');
      await d.page.getByRole('button', { name: 'Take snapshot' }).click();
      await d.page.getByRole('cell', { name: /^before the change snap_/ }).waitFor();
      const listed = (await api('GET', `/v1/sandboxes/${serverId}/snapshots`)).body;
      expect(listed.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([['before the change', 'completed']]);
      expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

      const [download] = await Promise.all([d.page.waitForEvent('download'), d.page.getByRole('button', { name: 'Download before the change' }).click()]);
      expect(download.suggestedFilename()).toBe('before_the_change.tar.gz');
      expect(download.url()).toContain(`/v1/snapshot-downloads/${listed[0].id}?`);
      await d.finish('sandbox-snapshots');
    });

    it('shows the lifecycle events and sessions of the sandbox', async () => {
      const d = await open(`/sandboxes/${serverId}/activity`);
      await d.page.getByRole('heading', { name: 'Lifecycle events' }).waitFor();
      const events = (await api('GET', `/v1/sandboxes/${serverId}/events`)).body as { type: string }[];
      expect(events.length).toBeGreaterThan(0);
      await d.page.getByRole('cell', { name: events[0].type, exact: true }).first().waitFor();
      const sessions = (await api('GET', `/v1/sessions?sandbox_id=${serverId}`)).body as { id: string }[];
      if (sessions.length) expect(await d.page.getByRole('link', { name: sessions[0].id }).getAttribute('href')).toBe(`/sessions/${sessions[0].id}`);
      else await d.page.getByText('No sessions recorded in this sandbox.').waitFor();
      expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
      await d.finish('sandbox-activity');
    });
  });

  it('renders only a window of a thousand sandboxes, loading every page of the list', async () => {
    // Rows of another host: this server's monitor and shutdown leave them alone.
    const rows = Array.from({ length: 1000 }, (_, i) =>
      sandboxRecord(account.account.id, { host_id: 'seeded-elsewhere', status: i % 3 ? 'running' : 'paused', created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() }),
    );
    for (let i = 0; i < rows.length; i += 100)
      await t.storage.db
        .insertInto('sandboxes')
        .values(rows.slice(i, i + 100))
        .execute();
    const listed: { id: string }[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = (await api('GET', `/v1/sandboxes?limit=500&offset=${offset}`)).body as { id: string }[];
      listed.push(...page);
      if (page.length < 500) break;
    }
    expect(listed.length).toBeGreaterThanOrEqual(1000);

    for (const [viewport, name] of [
      [undefined, 'sandbox-list-1000'],
      [PHONE, 'sandbox-list-phone'],
    ] as const) {
      const d = await open('/sandboxes', { viewport });
      await d.page.getByText(`${listed.length} sandboxes`, { exact: true }).waitFor({ timeout: 30_000 });
      const rendered = await d.page.getByTestId('sandbox-row').count();
      expect(rendered).toBeGreaterThan(5);
      expect(rendered).toBeLessThan(60);
      // Scrolling to the end renders the last sandbox of the API's last page.
      await d.page.getByTestId('sandbox-list').evaluate((list) => list.scrollTo(0, list.scrollHeight));
      await d.page
        .getByTestId('sandbox-row')
        .filter({ hasText: listed.at(-1)!.id })
        .waitFor();
      expect(await d.page.getByTestId('sandbox-row').count()).toBeLessThan(60);
      expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
      await d.finish(name);
    }
  });
});
