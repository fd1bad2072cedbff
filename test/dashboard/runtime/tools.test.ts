// The sandbox's tool pages in Chromium against a real runc sandbox: the terminal (xterm.js over the
// ticketed WebSocket, re-attached after a reload), the streaming command runner, and the file browser.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';
import { launchBrowser, openDashboard, PHONE, seriousAccessibilityViolations, signIn, type BrowserHandle } from '../helpers/browser.js';

describe('sandbox tool pages on runc', () => {
  let t: TestApp;
  let browser: BrowserHandle;
  let account: { key: string; email: string; password: string };
  let sandboxId: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startApp('sqlite', {}, { runtime: 'runc' }), launchBrowser()]);
    // Team plan: the pages and the test together make more requests than the free plan's 60 a minute.
    const created = await t.signup();
    await t.storage.db.updateTable('accounts').set({ plan: 'team' }).where('id', '=', created.account.id).execute();
    account = created;
    const sandbox = await t.request('POST', '/v1/sandboxes', { token: account.key, body: { template: 'minimal', cpus: 1, memory_mb: 256, disk_gb: 1, network_mode: 'none' } });
    expect(sandbox.status, sandbox.text).toBe(201);
    sandboxId = sandbox.body.id;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(path: string, options: { viewport?: { width: number; height: number } } = {}) {
    const d = await openDashboard(browser, options);
    // A locator that never matches fails after this instead of waiting out the test.
    d.page.setDefaultTimeout(20_000);
    await signIn(d, t, account);
    await d.page.goto(`${t.url}/sandboxes/${sandboxId}/${path}`);
    return d;
  }

  const readBytes = async (path: string) => {
    const answer = await fetch(`${t.url}/v1/sandboxes/${sandboxId}/files/content?path=${encodeURIComponent(path)}`, { headers: { authorization: `Bearer ${account.key}` } });
    expect(answer.status).toBe(200);
    return Buffer.from(await answer.arrayBuffer());
  };

  describe('terminal', () => {
    const screenText = (page: Page) => page.locator('.xterm-rows').innerText();
    const typeLine = async (page: Page, line: string) => {
      await page.locator('.xterm').click();
      await page.keyboard.type(line);
      await page.keyboard.press('Enter');
    };

    it('runs a shell, and after a reload re-attaches to the same one with its output still there', async () => {
      const d = await open('terminal');
      await expect.poll(() => d.page.locator('.terminal-state').textContent(), { timeout: 30_000 }).toBe('Connected');
      await typeLine(d.page, 'echo hello-$((6*7))');
      await expect.poll(() => screenText(d.page), { timeout: 20_000 }).toContain('hello-42');
      await typeLine(d.page, 'echo before-$$');
      await expect.poll(async () => /before-(\d+)/.exec(await screenText(d.page))?.[1], { timeout: 20_000 }).toBeTruthy();
      const shellPid = /before-(\d+)/.exec(await screenText(d.page))![1];

      // The session id is in the URL (never a credential), and the API lists that session.
      const sessionId = new URL(d.page.url()).searchParams.get('terminal');
      expect(sessionId).toMatch(/^term_/);
      expect(d.page.url()).not.toContain('tkt_');
      const sessions = await t.request('GET', `/v1/sandboxes/${sandboxId}/terminal/sessions`, { token: account.key });
      expect(sessions.body.map((s: { id: string }) => s.id)).toEqual([sessionId]);
      expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

      await d.page.reload();
      await expect.poll(() => d.page.locator('.terminal-state').textContent(), { timeout: 30_000 }).toBe('Connected (re-attached to the running shell)');
      // The replayed scrollback has the earlier output; the same shell answers the same $$.
      await expect.poll(() => screenText(d.page), { timeout: 20_000 }).toContain('hello-42');
      await typeLine(d.page, 'echo after-$$');
      await expect.poll(async () => /after-(\d+)/.exec(await screenText(d.page))?.[1], { timeout: 20_000 }).toBe(shellPid);
      expect(new URL(d.page.url()).searchParams.get('terminal')).toBe(sessionId);
      const after = await t.request('GET', `/v1/sandboxes/${sandboxId}/terminal/sessions`, { token: account.key });
      expect(after.body).toEqual([expect.objectContaining({ id: sessionId, attached: true })]);
      await d.finish('sandbox-terminal');

      // "New shell" starts another session: a different shell process.
      const again = await open(`terminal?terminal=${sessionId}`);
      await expect.poll(() => again.page.locator('.terminal-state').textContent(), { timeout: 30_000 }).toBe('Connected (re-attached to the running shell)');
      await again.page.getByRole('button', { name: 'New shell' }).click();
      await expect.poll(() => again.page.locator('.terminal-state').textContent(), { timeout: 30_000 }).toBe('Connected');
      await expect.poll(() => new URL(again.page.url()).searchParams.get('terminal')).not.toBe(sessionId);
      await typeLine(again.page, 'echo fresh-$$');
      await expect.poll(async () => /fresh-(\d+)/.exec(await screenText(again.page))?.[1], { timeout: 20_000 }).toMatch(/^\d+$/);
      expect(/fresh-(\d+)/.exec(await screenText(again.page))![1]).not.toBe(shellPid);
      await again.finish('sandbox-terminal-new-shell');
    });
  });

  describe('command runner', () => {
    it('streams stdout and stderr as they arrive, then shows the exit code, and keeps the runs', async () => {
      const d = await open('exec');
      await expect.poll(() => d.page.getByText('No commands run on this page yet').isVisible()).toBe(true);
      expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

      await d.page.getByLabel('Command').fill('echo out-1; echo err-1 >&2; sleep 3; echo out-2; exit 3');
      await d.page.getByRole('button', { name: 'Run' }).click();
      const run = d.page.getByRole('article').first();
      const streamText = async (stream: string) => (await run.locator(`[data-stream="${stream}"]`).allTextContents()).join('');
      // The first lines show while the command is still sleeping: streamed, not answered at the end.
      await expect.poll(() => streamText('stdout'), { timeout: 20_000 }).toBe('out-1\n');
      expect(await run.getByTestId('exit-code').count()).toBe(0);
      await expect.poll(() => streamText('stderr')).toBe('err-1\n');
      await expect.poll(async () => (await run.getByTestId('exit-code').allTextContents()).join(''), { timeout: 20_000 }).toBe('exit 3');
      expect(await streamText('stdout')).toBe('out-1\nout-2\n');

      await d.page.getByText('Options', { exact: true }).click();
      await d.page.getByLabel('Working directory').fill('/tmp');
      await d.page.getByLabel(/Environment/).fill('GREETING=hi-from-env');
      await d.page.getByLabel('Command').fill('pwd; echo "$GREETING"');
      await d.page.getByRole('button', { name: 'Run' }).click();
      const second = d.page.getByRole('article').first();
      await expect.poll(async () => (await second.getByTestId('exit-code').allTextContents()).join(''), { timeout: 20_000 }).toBe('exit 0');
      expect(await second.locator('pre').textContent()).toBe('/tmp\nhi-from-env\n');
      expect(await d.page.getByRole('article').count()).toBe(2);

      await d.page.getByLabel('Timeout (seconds, at most 300)').fill('0');
      await d.page.getByRole('button', { name: 'Run' }).click();
      await expect.poll(() => d.page.getByRole('alert').textContent()).toBe('The timeout is whole seconds from 1 to 300');
      expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
      await d.finish('sandbox-exec');
    });
  });

  describe('file browser', () => {
    it('views and edits a file written through the API, and the API reads what the browser saved', async () => {
      const written = await t.request('PUT', `/v1/sandboxes/${sandboxId}/files/content?path=docs/from-api.txt`, {
        token: account.key,
        raw: 'written through the API\n',
        contentType: 'application/octet-stream',
      });
      expect(written.status, written.text).toBe(200);
      const d = await open('files');
      await d.page.getByRole('link', { name: 'docs/' }).click();
      await d.page.waitForURL(/path=%2Fworkspace%2Fdocs/);
      await d.page.getByRole('link', { name: 'from-api.txt', exact: true }).click();
      const editor = d.page.getByLabel('Content of from-api.txt');
      await expect.poll(() => editor.inputValue()).toBe('written through the API\n');
      expect(await seriousAccessibilityViolations(d.page)).toEqual([]);

      await editor.fill('edited in the browser\nsecond line\n');
      await d.page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => d.page.getByText('Saved.').isVisible()).toBe(true);
      expect((await readBytes('/workspace/docs/from-api.txt')).toString('utf8')).toBe('edited in the browser\nsecond line\n');

      // Breadcrumbs lead back up; a new folder made here is a directory the API lists.
      await d.page.getByRole('navigation', { name: 'Directory' }).getByRole('link', { name: 'workspace' }).click();
      await d.page.getByLabel('New file or folder name').fill('made-here');
      await d.page.getByRole('button', { name: 'New folder' }).click();
      await d.page.waitForURL(/path=%2Fworkspace%2Fmade-here/);
      await expect.poll(() => d.page.getByText('This directory is empty.').isVisible()).toBe(true);
      const listing = await t.request('GET', `/v1/sandboxes/${sandboxId}/files?path=/workspace`, { token: account.key });
      expect(listing.body).toContainEqual(expect.objectContaining({ name: 'made-here', type: 'directory' }));
      await d.finish('sandbox-files-edit');
    });

    it('uploads a binary file byte for byte, offers it as a download, downloads the same bytes, and deletes it', async () => {
      const bytes = Buffer.concat([Buffer.from([0, 1, 2, 255, 0]), randomBytes(4096)]);
      const d = await open('files', {});
      d.page.on('dialog', (dialog) => void dialog.accept());
      await d.page.getByLabel('Upload files here').setInputFiles({ name: 'upload.bin', mimeType: 'application/octet-stream', buffer: bytes });
      await expect.poll(() => d.page.getByRole('link', { name: 'upload.bin', exact: true }).isVisible(), { timeout: 20_000 }).toBe(true);
      expect((await readBytes('/workspace/upload.bin')).equals(bytes)).toBe(true);

      await d.page.getByRole('link', { name: 'upload.bin', exact: true }).click();
      await expect.poll(() => d.page.getByText(/This file is binary/).isVisible()).toBe(true);
      const [download] = await Promise.all([d.page.waitForEvent('download'), d.page.getByRole('link', { name: 'Download upload.bin' }).click()]);
      expect(download.suggestedFilename()).toBe('upload.bin');
      expect(readFileSync((await download.path())!).equals(bytes)).toBe(true);
      expect(await seriousAccessibilityViolations(d.page)).toEqual([]);
      await d.finish('sandbox-files-binary');

      const phone = await open('files', { viewport: PHONE });
      phone.page.on('dialog', (dialog) => void dialog.accept());
      await phone.page.getByRole('button', { name: 'Delete upload.bin' }).click();
      await expect.poll(() => phone.page.getByRole('link', { name: 'upload.bin', exact: true }).count()).toBe(0);
      const listing = await t.request('GET', `/v1/sandboxes/${sandboxId}/files?path=/workspace`, { token: account.key });
      expect(listing.body.map((entry: { name: string }) => entry.name)).not.toContain('upload.bin');
      expect(await seriousAccessibilityViolations(phone.page)).toEqual([]);
      await phone.finish('sandbox-files-phone');
    });
  });
});
