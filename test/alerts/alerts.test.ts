// Alerts and rules through the API: raising (one open alert per type and resource), listing with
// filters and pages, resolving, rules with their defaults and validation, and disabled rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RaiseAlert } from '../../src/alerts/contract.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('alerts on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  const sandboxError = (accountId: string, sandboxId: string, message = `sandbox ${sandboxId} crashed`): RaiseAlert => ({
    accountId,
    type: 'sandbox_error',
    resource: { kind: 'sandbox', id: sandboxId },
    sandboxId,
    message,
    details: { error: 'init died' },
  });
  const get = (path: string, token: string) => t.request('GET', path, { token });

  it('records a raised alert with the spec fields and the severity of its type', async () => {
    const { key, account } = await t.signup();
    const raised = await t.services.alerts.raise(sandboxError(account.id, 'sbx_one'));
    expect(raised?.id).toMatch(/^alr_/);

    const list = await get('/v1/alerts', key);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const alert = list.body[0];
    expect(alert).toMatchObject({
      id: raised!.id,
      type: 'sandbox_error',
      severity: 'error',
      message: 'sandbox sbx_one crashed',
      sandbox_id: 'sbx_one',
      resolved: false,
      resolved_at: null,
      resource: { kind: 'sandbox', id: 'sbx_one' },
      details: { error: 'init died' },
    });
    expect(new Date(alert.created_at).toISOString()).toBe(alert.created_at);
    expect((await get(`/v1/alerts/${raised!.id}`, key)).body).toEqual(alert);

    for (const [type, severity] of [
      ['budget_warning', 'warning'],
      ['budget_critical', 'critical'],
      ['budget_exceeded', 'critical'],
      ['trust_low', 'warning'],
      ['trust_critical', 'critical'],
      ['idle_timeout', 'info'],
    ] as const) {
      const other = await t.services.alerts.raise({ accountId: account.id, type, resource: { kind: 'sandbox', id: 'sbx_one' }, sandboxId: 'sbx_one', message: type });
      expect((await get(`/v1/alerts/${other!.id}`, key)).body.severity).toBe(severity);
    }
  });

  it('keeps one open alert per type and resource, even when raised concurrently', async () => {
    const { key, account } = await t.signup();
    const results = await Promise.all(Array.from({ length: 12 }, () => t.services.alerts.raise(sandboxError(account.id, 'sbx_race'))));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await get('/v1/alerts', key)).body).toHaveLength(1);
    expect(await t.services.alerts.raise(sandboxError(account.id, 'sbx_race'))).toBeNull();
    // Another resource or another type is another alert.
    expect(await t.services.alerts.raise(sandboxError(account.id, 'sbx_other'))).not.toBeNull();
    expect(await t.services.alerts.raise({ ...sandboxError(account.id, 'sbx_race'), type: 'idle_timeout' })).not.toBeNull();
    expect((await get('/v1/alerts', key)).body).toHaveLength(3);
    // One notification per raised alert, not per attempt.
    expect((await get('/v1/notifications/unread-count', key)).body).toEqual({ count: 3 });
  });

  it('resolves idempotently, keeps resolved alerts listed, and lets the condition raise again', async () => {
    const { key, account } = await t.signup();
    const first = await t.services.alerts.raise(sandboxError(account.id, 'sbx_r'));
    await new Promise((resolve) => setTimeout(resolve, 2));
    const resolved = await t.request('POST', `/v1/alerts/${first!.id}/resolve`, { token: key });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ id: first!.id, resolved: true });
    expect(resolved.body.resolved_at).toEqual(expect.any(String));
    const again = await t.request('POST', `/v1/alerts/${first!.id}/resolve`, { token: key });
    expect(again.status).toBe(200);
    expect(again.body.resolved_at).toBe(resolved.body.resolved_at);

    const second = await t.services.alerts.raise(sandboxError(account.id, 'sbx_r'));
    expect(second?.id).not.toBe(first!.id);
    const all = (await get('/v1/alerts', key)).body;
    expect(all.map((a: any) => [a.id, a.resolved])).toEqual([
      [second!.id, false],
      [first!.id, true],
    ]);

    await t.services.alerts.resolveOpen(account.id, 'sandbox_error', { kind: 'sandbox', id: 'sbx_r' });
    expect((await get(`/v1/alerts/${second!.id}`, key)).body.resolved).toBe(true);
  });

  it('filters by resolved, type, sandbox_id and severity, and pages with limit and offset', async () => {
    const { key, account } = await t.signup();
    const ids: string[] = [];
    // Ids sort by creation time to the millisecond: space the alerts out so "newest first" is one order.
    const nextMillisecond = () => new Promise((resolve) => setTimeout(resolve, 2));
    for (let i = 0; i < 5; i++) {
      ids.push((await t.services.alerts.raise(sandboxError(account.id, `sbx_${i}`)))!.id);
      await nextMillisecond();
    }
    const trust = await t.services.alerts.raise({ accountId: account.id, type: 'trust_critical', resource: { kind: 'session', id: 'ses_1' }, sandboxId: 'sbx_0', message: 'trust 40' });
    await t.request('POST', `/v1/alerts/${ids[1]}/resolve`, { token: key });

    const ids$ = async (query: string) => {
      const reply = await get(`/v1/alerts${query}`, key);
      expect(reply.status).toBe(200);
      return reply.body.map((a: any) => a.id);
    };
    expect(await ids$('')).toEqual([trust!.id, ...[...ids].reverse()]);
    expect(await ids$('?resolved=true')).toEqual([ids[1]]);
    expect(await ids$('?resolved=false')).toHaveLength(5);
    expect(await ids$('?type=trust_critical')).toEqual([trust!.id]);
    expect(await ids$('?severity=critical')).toEqual([trust!.id]);
    expect(await ids$('?severity=error&resolved=false')).toEqual([ids[4], ids[3], ids[2], ids[0]]);
    expect(await ids$('?sandbox_id=sbx_0')).toEqual([trust!.id, ids[0]]);
    expect(await ids$('?sandbox_id=sbx_nothing')).toEqual([]);

    const page = await get('/v1/alerts?limit=2&offset=1', key);
    expect(page.body.map((a: any) => a.id)).toEqual([ids[4], ids[3]]);
    expect(page.headers.get('x-total-count')).toBe('6');
    expect((await get('/v1/alerts?type=sandbox_error&limit=1', key)).headers.get('x-total-count')).toBe('5');
    expect(await ids$('?offset=100')).toEqual([]);
  });

  it.each([
    ['?type=fire', 'query.type'],
    ['?severity=huge', 'query.severity'],
    ['?resolved=maybe', 'query.resolved'],
    ['?limit=0', 'query.limit'],
    ['?limit=101', 'query.limit'],
    ['?limit=-1', 'query.limit'],
    ['?limit=abc', 'query.limit'],
    ['?offset=-5', 'query.offset'],
    ['?sandbox_id=', 'query.sandbox_id'],
    ['?colour=red', 'query.colour'],
  ])('answers 400 for GET /v1/alerts%s naming %s', async (query, field) => {
    const { key } = await t.signup();
    const reply = await get(`/v1/alerts${query}`, key);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain(field);
  });

  it("answers 404 for unknown ids and for another account's alert", async () => {
    const owner = await t.signup();
    const stranger = await t.signup();
    const raised = await t.services.alerts.raise(sandboxError(owner.account.id, 'sbx_mine'));
    for (const [method, path] of [
      ['GET', `/v1/alerts/${raised!.id}`],
      ['POST', `/v1/alerts/${raised!.id}/resolve`],
      ['GET', '/v1/alerts/alr_nothing'],
    ] as const) {
      const reply = await t.request(method, path, { token: stranger.key });
      expect(reply.status).toBe(404);
      expect(reply.body.error).toMatch(/alert not found/);
    }
    expect((await get(`/v1/alerts/${raised!.id}`, owner.key)).body.resolved).toBe(false);
    expect((await get('/v1/alerts', stranger.key)).body).toEqual([]);
  });

  it('needs a key, and a full-scope one', async () => {
    const { key } = await t.signup();
    expect((await t.request('GET', '/v1/alerts')).status).toBe(401);
    const read = await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'ro', scope: 'read' } });
    expect((await get('/v1/alerts', read.body.key)).status).toBe(403);
    expect((await get('/v1/notifications', read.body.key)).status).toBe(403);
  });
});

describe.each(BACKENDS)('alert rules on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  const rules = async (key: string) => (await t.request('GET', '/v1/alerts/rules', { token: key })).body as any[];
  const put = (key: string, id: string, body: unknown) => t.request('PUT', `/v1/alerts/rules/${id}`, { token: key, body });

  it('gives every account one rule per alert type with the documented defaults', async () => {
    const { key } = await t.signup();
    const list = await rules(key);
    const all = ['email', 'chat_a', 'chat_b', 'webhook'];
    expect(list.map((r) => [r.type, r.enabled, r.threshold, r.threshold_unit, r.channels])).toEqual([
      ['budget_warning', true, 0.8, 'budget_fraction', all],
      ['budget_critical', true, 0.95, 'budget_fraction', all],
      ['budget_exceeded', true, 1, 'budget_fraction', all],
      ['trust_low', true, 70, 'trust_score', all],
      ['trust_critical', true, 50, 'trust_score', all],
      ['sandbox_error', true, null, null, all],
      ['idle_timeout', true, null, null, all],
      ['quota_warning', true, 0.8, 'quota_fraction', all],
      ['quota_exceeded', true, 1, 'quota_fraction', all],
      ['payment_failed', true, null, null, all],
    ]);
    expect(list.every((r) => /^rul_/.test(r.id))).toBe(true);
    expect((await rules(key)).map((r) => r.id)).toEqual(list.map((r) => r.id));
  });

  it('creates the rules once when first reads race', async () => {
    const { key, account } = await t.signup();
    const lists = await Promise.all([...Array.from({ length: 6 }, () => rules(key)), t.services.alerts.thresholds(account.id).then(() => rules(key))]);
    for (const list of lists) expect(list.map((r) => r.id)).toEqual(lists[0].map((r) => r.id));
    const stored = await t.storage.db.selectFrom('alert_rules').select('id').where('account_id', '=', account.id).execute();
    expect(stored).toHaveLength(10);
  });

  it('updates enabled, threshold and channels, answers the rule, and exposes thresholds to other features', async () => {
    const { key, account } = await t.signup();
    const warning = (await rules(key)).find((r) => r.type === 'budget_warning');
    const reply = await put(key, warning.id, { threshold: 0.5, channels: ['email', 'webhook'] });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: warning.id, type: 'budget_warning', enabled: true, threshold: 0.5, channels: ['email', 'webhook'] });
    const trust = (await rules(key)).find((r) => r.type === 'trust_low');
    expect((await put(key, trust.id, { threshold: 65, enabled: false })).body).toMatchObject({ threshold: 65, enabled: false });
    expect((await put(key, trust.id, { channels: [] })).body.channels).toEqual([]);

    const thresholds = await t.services.alerts.thresholds(account.id);
    expect(thresholds.budget_warning).toEqual({ enabled: true, threshold: 0.5 });
    expect(thresholds.budget_critical).toEqual({ enabled: true, threshold: 0.95 });
    expect(thresholds.trust_low).toEqual({ enabled: false, threshold: 65 });
    expect(thresholds.sandbox_error).toEqual({ enabled: true, threshold: null });
  });

  it.each([
    ['budget_warning', { threshold: 1.5 }, 'body.threshold must be between 0.0 and 1.0'],
    ['budget_exceeded', { threshold: -0.01 }, 'body.threshold must be between 0.0 and 1.0'],
    ['budget_critical', { threshold: null }, 'body.threshold is required'],
    ['trust_low', { threshold: 101 }, 'body.threshold must be between 0 and 100'],
    ['trust_critical', { threshold: -1 }, 'body.threshold must be between 0 and 100'],
    ['sandbox_error', { threshold: 0.5 }, 'body.threshold is not used by sandbox_error'],
    ['idle_timeout', { threshold: 10 }, 'body.threshold is not used by idle_timeout'],
    ['budget_warning', { threshold: '0.5' }, 'body.threshold'],
    ['budget_warning', { enabled: 'yes' }, 'body.enabled'],
    ['budget_warning', { channels: ['sms'] }, 'body.channels.0'],
    ['budget_warning', { channels: 'email' }, 'body.channels'],
    ['budget_warning', { channels: ['email', 'email'] }, 'body.channels'],
    ['budget_warning', { priority: 1 }, 'body.priority'],
    ['budget_warning', {}, 'body'],
  ])('refuses a %s rule update %j with 400', async (type, body, message) => {
    const { key } = await t.signup();
    const rule = (await rules(key)).find((r) => r.type === type);
    const reply = await put(key, rule.id, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain(message);
    expect((await rules(key)).find((r) => r.type === type)).toEqual(rule);
  });

  it("answers 404 for an unknown rule and another account's rule", async () => {
    const owner = await t.signup();
    const stranger = await t.signup();
    const rule = (await rules(owner.key))[0];
    expect((await put(stranger.key, rule.id, { enabled: false })).status).toBe(404);
    expect((await put(owner.key, 'rul_nothing', { enabled: false })).status).toBe(404);
    expect((await rules(owner.key))[0].enabled).toBe(true);
  });

  it('raises nothing for a disabled rule: no alert, no notification, no delivery', async () => {
    const { key, account } = await t.signup();
    const rule = (await rules(key)).find((r) => r.type === 'sandbox_error');
    await put(key, rule.id, { enabled: false });
    const raise = () => t.services.alerts.raise({ accountId: account.id, type: 'sandbox_error', resource: { kind: 'sandbox', id: 'sbx_x' }, sandboxId: 'sbx_x', message: 'boom' });
    expect(await raise()).toBeNull();
    expect((await t.request('GET', '/v1/alerts', { token: key })).body).toEqual([]);
    expect((await t.request('GET', '/v1/notifications', { token: key })).body).toEqual([]);
    expect((await t.request('GET', '/v1/notifications/deliveries', { token: key })).body).toEqual([]);

    await put(key, rule.id, { enabled: true });
    expect(await raise()).not.toBeNull();
    expect((await t.request('GET', '/v1/alerts', { token: key })).body).toHaveLength(1);
  });
});
