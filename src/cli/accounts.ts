// `paddock accounts`: the operator at the server's console manages plans without a payment processor —
// lists accounts and plan requests, approves or rejects requests, sets a plan. It opens the database as
// `paddock migrate` does and goes through the same billing services as the operator API; acting as no
// account, the rule that an operator cannot raise their own plan does not bind it.
import pino from 'pino';
import { AccountService } from '../accounts/service.js';
import { createAlerts } from '../alerts/plugin.js';
import { createBillingCore } from '../billing/plugin.js';
import { PLANS, type Plan } from '../billing/contract.js';
import { storageOptions, type Config } from '../config.js';
import { openStorage } from '../core/db/database.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { HttpError } from '../core/errors.js';
import { loggerOptions } from '../core/logging.js';
import { limiterFactory } from '../core/rate-limit.js';
import { loadSecretsKey } from '../secrets/key.js';

export const ACCOUNTS_USAGE = `usage: paddock accounts <command>
  list                              every account: id, email, plan, status
  requests [--status S]             plan requests (S: pending, approved, rejected, canceled), newest first
  approve ID                        approve a plan request: the plan is in force at once, for the current calendar month
  reject ID [--reason R]            reject a plan request
  set-plan EMAIL_OR_ID PLAN         set an account's plan (free, pro, team, enterprise) from now
`;

const REQUEST_STATUSES = ['pending', 'approved', 'rejected', 'canceled'] as const;

export async function accountsCommand(args: string[], options: { status?: string; reason?: string }, config: Config): Promise<number> {
  const [command, ...rest] = args;
  const usage = (message: string) => {
    process.stderr.write(`${message}\n${ACCOUNTS_USAGE}`);
    return 2;
  };
  if (!command) return usage('paddock accounts needs a command');
  if (options.status !== undefined && !(REQUEST_STATUSES as readonly string[]).includes(options.status))
    return usage(`--status must be one of ${REQUEST_STATUSES.join(', ')}, got "${options.status}"`);
  const storage = openStorage(storageOptions(config));
  const log = pino(loggerOptions(config.logLevel === 'info' ? 'warn' : config.logLevel));
  const { alerts, closeChannels } = createAlerts(config, storage, log, await loadSecretsKey(config.secretsKey, config.dataDir));
  try {
    await migrateToLatest(storage.db);
    const loginFailures = await limiterFactory(null).create({ keyPrefix: 'login_failures', points: config.loginMaxFailures, durationSeconds: config.loginFailureWindowSeconds });
    const accounts = new AccountService(storage.db, config, loginFailures, log);
    const { operators } = createBillingCore({ config, storage, accounts, alerts });
    const print = (rows: object[]) => process.stdout.write(rows.map((row) => JSON.stringify(row)).join('\n') + (rows.length ? '\n' : ''));
    switch (command) {
      case 'list':
        print(await operators.listAccounts('console'));
        return 0;
      case 'requests':
        print(await operators.listRequests('console', (options.status as (typeof REQUEST_STATUSES)[number] | undefined) ?? null));
        return 0;
      case 'approve':
        if (rest.length !== 1) return usage('approve needs the plan request id');
        print([await operators.approve('console', rest[0])]);
        return 0;
      case 'reject':
        if (rest.length !== 1) return usage('reject needs the plan request id');
        print([await operators.reject('console', rest[0], options.reason ?? null)]);
        return 0;
      case 'set-plan': {
        if (rest.length !== 2) return usage('set-plan needs an account (email or id) and a plan');
        const plan = rest[1] as Plan;
        if (!PLANS.includes(plan)) return usage(`PLAN must be one of ${PLANS.join(', ')}, got "${rest[1]}"`);
        const subscription = await operators.setPlan('console', rest[0], plan);
        print([{ account_id: subscription.accountId, plan: subscription.plan, status: subscription.status, current_period_end: subscription.currentPeriodEnd }]);
        return 0;
      }
      default:
        return usage(`unknown accounts command "${command}"`);
    }
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  } finally {
    closeChannels();
    await storage.close();
  }
}
