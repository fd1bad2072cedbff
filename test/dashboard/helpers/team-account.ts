// A dashboard account on the team plan (its rate limit leaves room for pages that read a lot), signed in
// in the browser, with a full-scope API key for setting data up.
import type { TestApp } from '../../helpers/app.js';
import { signIn, type DashboardPage } from './browser.js';

export async function signInOnTeamPlan(d: DashboardPage, t: TestApp): Promise<{ key: string; accountId: string }> {
  const account = await t.signup();
  await t.storage.db.updateTable('accounts').set({ plan: 'team' }).where('id', '=', account.account.id).execute();
  const minted = await t.request('POST', '/v1/account/keys', { token: account.key, body: { name: 'dashboard-test' } });
  await signIn(d, t, account);
  return { key: minted.body.key as string, accountId: account.account.id as string };
}
