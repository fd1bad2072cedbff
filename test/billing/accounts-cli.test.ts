// `paddock accounts` from the server's console, run as the built binary against a data directory:
// the operator lists accounts and plan requests, approves and rejects, and sets plans; the account's
// next API request sees the plan. The console acts as no account, so it may decide any request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { ndjsonLines } from '../helpers/ndjson.js';

describe.each(BACKENDS)('paddock accounts on %s', (backend) => {
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startApp(backend);
    env = { PADDOCK_DATA: t.dataDir, PADDOCK_LOG_LEVEL: 'warn', ...(t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { DATABASE_URL: '' }) };
  });
  afterAll(async () => {
    await t?.close();
  });

  const cli = async (...args: string[]) => {
    const result = await runCli(['accounts', ...args], env);
    return {
      ...result,
      rows: ndjsonLines(result.stdout),
    };
  };

  it('approves a request from the console; the server sees the plan within its 5 s credential cache', async () => {
    const { key, account } = await t.signup();
    const request = (await t.request('POST', '/v1/billing/checkout', { token: key, body: { plan: 'team' } })).body.request_id;
    const pending = await cli('requests', '--status', 'pending');
    expect(pending.code).toBe(0);
    expect(pending.rows).toEqual([expect.objectContaining({ id: request, account_id: account.id, plan: 'team', status: 'pending' })]);
    const approved = await cli('approve', request);
    expect(approved.code).toBe(0);
    expect(approved.rows[0]).toMatchObject({ id: request, status: 'approved', decided_by: 'console' });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('team');
  });

  it('rejects with a reason, sets a plan by email, and lists every account', async () => {
    const { key, email, account } = await t.signup();
    const request = (await t.request('POST', '/v1/billing/checkout', { token: key, body: { plan: 'pro' } })).body.request_id;
    const rejected = await cli('reject', request, '--reason', 'not this month');
    expect(rejected.rows[0]).toMatchObject({ status: 'rejected', reason: 'not this month' });
    const set = await cli('set-plan', email, 'enterprise');
    expect(set.code).toBe(0);
    expect(set.rows[0]).toMatchObject({ account_id: account.id, plan: 'enterprise', status: 'active' });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('enterprise');
    const listed = await cli('list');
    expect(listed.rows.find((row: any) => row.id === account.id)).toMatchObject({ email, plan: 'enterprise', status: 'active' });
  });

  it('answers bad use with exit code 2 and what is wrong, and unknown ids with 1', async () => {
    const badPlan = await cli('set-plan', 'someone@example.com', 'gold');
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain('PLAN must be one of free, pro, team, enterprise, got "gold"');
    const badStatus = await cli('requests', '--status', 'maybe');
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toContain('--status must be one of');
    expect((await cli('approve')).code).toBe(2);
    expect((await cli('frobnicate')).stderr).toContain('unknown accounts command "frobnicate"');
    const unknown = await cli('approve', 'preq_unknown');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('plan request not found');
  });
});
