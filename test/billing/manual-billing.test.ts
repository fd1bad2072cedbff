// The manual provider end to end through the public API: pricing, the subscription of a new account,
// checkout as a plan request, operators approving and rejecting (never their own), the portal, cancel,
// and the plan taking effect on the very next request (rate limit, GET /v1/account, the subscription).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const ENV = {
  PADDOCK_RATE_LIMIT_FREE: '500',
  PADDOCK_RATE_LIMIT_PRO: '700',
  PADDOCK_OPERATORS: 'ops@example.com',
  PADDOCK_PUBLIC_URL: 'https://paddock.example.com',
};

describe.each(BACKENDS)('manual billing on %s', (backend) => {
  let t: TestApp;
  /** The first account created: an operator without being named. */
  let first: { key: string; account: any };
  /** Named by PADDOCK_OPERATORS. */
  let ops: { key: string; account: any };

  beforeAll(async () => {
    t = await startApp(backend, ENV);
    first = await t.signup();
    ops = await t.signup({ email: 'Ops@Example.com' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = (method: string, path: string, key: string, body?: unknown) => t.request(method, path, { token: key, ...(body === undefined ? {} : { body }) });

  it('answers a new account: free, active, the calendar month, the free limits, no usage', async () => {
    const { key } = await t.signup();
    const reply = await call('GET', '/v1/billing/subscription', key);
    expect(reply.status).toBe(200);
    const now = new Date();
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(reply.body).toEqual({
      plan: 'free',
      status: 'active',
      provider: 'manual',
      current_period_start: start,
      current_period_end: end,
      cancel_at_period_end: false,
      effective_at: null,
      grace_ends_at: null,
      pending_request: null,
      limits: { concurrent_sandboxes: 2, compute_hours_per_month: 10, requests_per_minute: 500 },
      usage: { compute_hours: 0, compute_cost_usd: 0, llm_cost_usd: 0, total_cost_usd: 0, sandboxes_created: 0 },
      operator: false,
    });
    expect((await call('GET', '/v1/billing/subscription', ops.key)).body.operator).toBe(true);
  });

  it('checks out pro as a pending plan request the operator approves; the next request runs on pro', async () => {
    const { key, account } = await t.signup();
    const before = await call('GET', '/v1/account', key);
    expect(before.headers.get('x-ratelimit-limit')).toBe('500');

    const checkout = await call('POST', '/v1/billing/checkout', key, { plan: 'pro' });
    expect(checkout.status).toBe(200);
    expect(checkout.body).toMatchObject({ status: 'pending', request_id: expect.stringMatching(/^preq_/) });
    expect(checkout.body.url).toBe(`https://paddock.example.com/billing?request=${checkout.body.request_id}`);

    const pending = await call('GET', '/v1/billing/subscription', key);
    expect(pending.body).toMatchObject({ plan: 'free', status: 'pending', pending_request: { id: checkout.body.request_id, plan: 'pro', status: 'pending', account_id: account.id } });

    const listed = await call('GET', '/v1/admin/plan-requests?status=pending', ops.key);
    expect(listed.status).toBe(200);
    expect(listed.body.map((r: any) => r.id)).toContain(checkout.body.request_id);

    const approved = await call('POST', `/v1/admin/plan-requests/${checkout.body.request_id}/approve`, ops.key);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', decided_by: ops.account.id, decided_at: expect.any(String) });

    const after = await call('GET', '/v1/account', key);
    expect(after.body.plan).toBe('pro');
    expect(after.headers.get('x-ratelimit-limit')).toBe('700');
    const subscription = await call('GET', '/v1/billing/subscription', key);
    expect(subscription.body).toMatchObject({ plan: 'pro', status: 'active', pending_request: null, limits: { concurrent_sandboxes: 10, compute_hours_per_month: 100, requests_per_minute: 700 } });

    const again = await call('POST', '/v1/billing/checkout', key, { plan: 'pro' });
    expect(again.status).toBe(409);
    expect(again.body.error).toContain('pro plan is already in force');
    const decidedTwice = await call('POST', `/v1/admin/plan-requests/${checkout.body.request_id}/approve`, ops.key);
    expect(decidedTwice.status).toBe(409);
    expect(decidedTwice.body.error).toContain('is approved, not pending');
  });

  it('replaces a pending request with a newer checkout, and rejects with a reason', async () => {
    const { key } = await t.signup();
    const firstAsk = (await call('POST', '/v1/billing/checkout', key, { plan: 'team' })).body.request_id;
    const secondAsk = (await call('POST', '/v1/billing/checkout', key, { plan: 'enterprise' })).body.request_id;
    const all = (await call('GET', '/v1/admin/plan-requests', first.key)).body;
    expect(all.find((r: any) => r.id === firstAsk)).toMatchObject({ status: 'canceled', reason: `replaced by request ${secondAsk}` });

    const rejected = await call('POST', `/v1/admin/plan-requests/${secondAsk}/reject`, first.key, { reason: 'talk to sales first' });
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'talk to sales first', decided_by: first.account.id });
    expect((await call('GET', '/v1/billing/subscription', key)).body).toMatchObject({ plan: 'free', status: 'active', pending_request: null });
  });

  it('refuses an operator approving their own request or setting their own plan (403 self_plan_change)', async () => {
    const own = (await call('POST', '/v1/billing/checkout', ops.key, { plan: 'team' })).body.request_id;
    const approve = await call('POST', `/v1/admin/plan-requests/${own}/approve`, ops.key);
    expect(approve.status).toBe(403);
    expect(approve.body).toMatchObject({ code: 'self_plan_change', error: expect.stringContaining('cannot approve your own plan request') });
    const setOwn = await call('PUT', `/v1/admin/accounts/${ops.account.id}/plan`, ops.key, { plan: 'enterprise' });
    expect(setOwn.status).toBe(403);
    expect(setOwn.body.code).toBe('self_plan_change');
    expect((await call('GET', '/v1/account', ops.key)).body.plan).toBe('free');
    // Another operator may.
    expect((await call('POST', `/v1/admin/plan-requests/${own}/approve`, first.key)).status).toBe(200);
    expect((await call('GET', '/v1/account', ops.key)).body.plan).toBe('team');
  });

  it('answers 403 operator_only to an account that is not an operator, on every operator route', async () => {
    const { key, account } = await t.signup();
    const request = (await call('POST', '/v1/billing/checkout', key, { plan: 'pro' })).body.request_id;
    for (const [method, path, body] of [
      ['GET', '/v1/admin/plan-requests', undefined],
      ['POST', `/v1/admin/plan-requests/${request}/approve`, undefined],
      ['POST', `/v1/admin/plan-requests/${request}/reject`, { reason: 'no' }],
      ['GET', '/v1/admin/accounts', undefined],
      ['PUT', `/v1/admin/accounts/${account.id}/plan`, { plan: 'team' }],
    ] as const) {
      const reply = await call(method, path, key, body);
      expect({ path, status: reply.status, code: reply.body.code }).toEqual({ path, status: 403, code: 'operator_only' });
    }
    expect((await call('GET', '/v1/account', key)).body.plan).toBe('free');
  });

  it('lets an operator list accounts and set a plan by email; free ends the subscription', async () => {
    const { key, email, account } = await t.signup();
    const set = await call('PUT', `/v1/admin/accounts/${encodeURIComponent(email)}/plan`, ops.key, { plan: 'enterprise' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ account_id: account.id, plan: 'enterprise', status: 'active', provider: 'manual' });
    expect((await call('GET', '/v1/account', key)).body.plan).toBe('enterprise');
    const listed = (await call('GET', '/v1/admin/accounts', ops.key)).body;
    expect(listed[0]).toMatchObject({ id: first.account.id, operator: true });
    expect(listed.find((a: any) => a.id === ops.account.id)).toMatchObject({ operator: true });
    expect(listed.find((a: any) => a.id === account.id)).toMatchObject({ email, plan: 'enterprise', status: 'active', operator: false });
    await call('PUT', `/v1/admin/accounts/${account.id}/plan`, ops.key, { plan: 'free' });
    expect((await call('GET', '/v1/account', key)).body.plan).toBe('free');
  });

  it("answers the dashboard's billing page as the portal", async () => {
    const { key } = await t.signup();
    const reply = await call('POST', '/v1/billing/portal', key);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ url: 'https://paddock.example.com/billing' });
  });

  it('cancels at the period end: the plan holds until effective_at, a second cancel answers the same', async () => {
    const { key, account } = await t.signup();
    await call('PUT', `/v1/admin/accounts/${account.id}/plan`, ops.key, { plan: 'pro' });
    const cancel = await call('POST', '/v1/billing/cancel', key);
    expect(cancel.status).toBe(200);
    const end = (await call('GET', '/v1/billing/subscription', key)).body;
    expect(cancel.body).toEqual({ status: 'canceled', effective_at: end.current_period_end });
    expect(end).toMatchObject({ plan: 'pro', status: 'canceled', cancel_at_period_end: true, effective_at: end.current_period_end });
    expect((await call('POST', '/v1/billing/cancel', key)).body).toEqual(cancel.body);
    expect((await call('GET', '/v1/account', key)).body.plan).toBe('pro');
  });

  it('withdraws a pending request on cancel; with nothing to cancel the free plan answers 409', async () => {
    const { key } = await t.signup();
    const nothing = await call('POST', '/v1/billing/cancel', key);
    expect(nothing.status).toBe(409);
    expect(nothing.body).toMatchObject({ code: 'subscription_state_conflict', error: expect.stringContaining('nothing to cancel') });
    const request = (await call('POST', '/v1/billing/checkout', key, { plan: 'team' })).body.request_id;
    const withdrawn = await call('POST', '/v1/billing/cancel', key);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.status).toBe('canceled');
    const listed = (await call('GET', '/v1/admin/plan-requests?status=canceled', ops.key)).body;
    expect(listed.find((r: any) => r.id === request)).toMatchObject({ reason: 'canceled by the account' });
  });

  it('answers bad input with a 4xx naming the problem on every route', async () => {
    const { key, account } = await t.signup();
    const free = await call('POST', '/v1/billing/checkout', key, { plan: 'free' });
    expect(free.status).toBe(400);
    expect(free.body).toMatchObject({ field: 'body.plan', error: expect.stringContaining('cancel') });
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v1/billing/checkout', { plan: 'gold' }, 'body.plan'],
      ['POST', '/v1/billing/checkout', {}, 'body.plan'],
      ['POST', '/v1/billing/checkout', { plan: 'pro', coupon: 'x' }, 'body.coupon'],
      ['GET', '/v1/admin/plan-requests?status=maybe', undefined, 'query.status'],
      ['POST', '/v1/admin/plan-requests/preq_x/reject', { reason: '' }, 'body.reason'],
      ['PUT', `/v1/admin/accounts/${account.id}/plan`, { plan: 'platinum' }, 'body.plan'],
      ['PUT', `/v1/admin/accounts/${account.id}/plan`, {}, 'body.plan'],
    ];
    for (const [method, path, body, field] of cases) {
      const reply = await call(method, path, ops.key, body);
      expect({ path, status: reply.status, field: reply.body.field }).toEqual({ path, status: 400, field });
    }
    expect((await call('POST', '/v1/admin/plan-requests/preq_unknown/approve', ops.key)).status).toBe(404);
    expect((await call('POST', '/v1/admin/plan-requests/preq_unknown/reject', ops.key, {})).status).toBe(404);
    expect((await call('PUT', '/v1/admin/accounts/nobody@example.com/plan', ops.key, { plan: 'pro' })).status).toBe(404);
    expect((await t.request('GET', '/v1/billing/subscription')).status).toBe(401);
    const narrow = (await call('POST', '/v1/account/keys', key, { name: 'ci', scope: 'sandbox' })).body.key;
    expect((await call('GET', '/v1/billing/subscription', narrow)).body.code).toBe('scope_denied');
    expect((await call('GET', '/v1/admin/accounts', (await call('POST', '/v1/account/keys', ops.key, { name: 'ci', scope: 'read' })).body.key)).body.code).toBe('scope_denied');
  });
});
