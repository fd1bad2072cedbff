// What operators of this server do without a payment processor: decide plan requests, list accounts,
// set an account's plan. Operators are the accounts config.billing.operators names and the first
// account created. Nobody raises their own plan: an operator cannot decide their own request nor set
// their own plan. The server's console (`paddock accounts`) acts as no account, so that rule does not
// bind it.
import type { PlanRequestStatus } from '../../core/db/billing-tables.js';
import { Forbidden, NotFound } from '../../core/errors.js';
import type { AccountPlans, BillingAccount, Plan, Subscription } from '../contract.js';
import type { PlanRequests, PlanRequestView } from '../plan-requests/service.js';
import { calendarMonthOf } from '../subscriptions/periods.js';
import type { SubscriptionTransitions } from '../subscriptions/transitions.js';

type AccountRecord = BillingAccount & { plan: Plan; createdAt: string };

/** Accounts as operators see them (accounts implements it; app.ts wires it). */
export interface OperatorDirectory extends AccountPlans {
  allAccounts(): Promise<AccountRecord[]>;
  findAccount(idOrEmail: string): Promise<AccountRecord | null>;
  firstAccountId(): Promise<string | null>;
}

/** Who acts: an operator's account through the API, or the server's console through the CLI. */
export type Actor = { accountId: string } | 'console';

export interface OperatorAccountView {
  id: string;
  email: string;
  name: string | null;
  plan: Plan;
  status: Subscription['status'];
  operator: boolean;
  created_at: string;
}

export class OperatorService {
  private readonly operatorEmails: Set<string>;

  constructor(
    private readonly accounts: OperatorDirectory,
    private readonly requests: PlanRequests,
    /** Stored subscriptions of these accounts (those without one are on their account's plan, active). */
    private readonly subscriptionsOf: (accountIds: string[]) => Promise<Map<string, Subscription>>,
    private readonly transitions: SubscriptionTransitions,
    operatorEmails: readonly string[],
    private readonly clock: () => number = Date.now,
  ) {
    this.operatorEmails = new Set(operatorEmails.map((email) => email.trim().toLowerCase()));
  }

  async isOperator(accountId: string): Promise<boolean> {
    const account = await this.accounts.account(accountId);
    return this.operatorEmails.has(account.email.trim().toLowerCase()) || (await this.accounts.firstAccountId()) === accountId;
  }

  listRequests(actor: Actor, status: PlanRequestStatus | null): Promise<PlanRequestView[]> {
    return this.asOperator(actor, () => this.requests.list(status));
  }

  approve(actor: Actor, requestId: string): Promise<PlanRequestView> {
    return this.asOperator(actor, async () => {
      const request = await this.requests.get(requestId);
      this.refuseOwn(actor, request.account_id, 'approve your own plan request');
      return this.requests.approve(requestId, decider(actor), this.clock());
    });
  }

  reject(actor: Actor, requestId: string, reason: string | null): Promise<PlanRequestView> {
    // Rejecting one's own request raises nothing: an operator may.
    return this.asOperator(actor, () => this.requests.reject(requestId, decider(actor), reason, this.clock()));
  }

  listAccounts(actor: Actor): Promise<OperatorAccountView[]> {
    return this.asOperator(actor, async () => {
      const [accounts, firstId] = await Promise.all([this.accounts.allAccounts(), this.accounts.firstAccountId()]);
      const rows = await this.subscriptionsOf(accounts.map((account) => account.id));
      return accounts.map((account) => ({
        id: account.id,
        email: account.email,
        name: account.name,
        plan: rows.get(account.id)?.plan ?? account.plan,
        status: rows.get(account.id)?.status ?? 'active',
        operator: account.id === firstId || this.operatorEmails.has(account.email.trim().toLowerCase()),
        created_at: account.createdAt,
      }));
    });
  }

  /** Sets the account's plan from now, on the current calendar month (free: the subscription ends now). */
  setPlan(actor: Actor, idOrEmail: string, plan: Plan): Promise<Subscription> {
    return this.asOperator(actor, async () => {
      const account = await this.accounts.findAccount(idOrEmail);
      if (!account) throw new NotFound('account');
      this.refuseOwn(actor, account.id, 'set your own plan');
      const nowMs = this.clock();
      if (plan === 'free') return this.transitions.endNow(account.id, 'an operator set the free plan', nowMs);
      return this.transitions.activate(account.id, { plan, provider: 'manual', period: calendarMonthOf(nowMs) }, { nowMs });
    });
  }

  private async asOperator<T>(actor: Actor, work: () => Promise<T>): Promise<T> {
    if (actor !== 'console' && !(await this.isOperator(actor.accountId))) {
      throw new Forbidden('only an operator of this server may do this (PADDOCK_OPERATORS names them; the first account is one)', 'operator_only');
    }
    return work();
  }

  private refuseOwn(actor: Actor, accountId: string, what: string): void {
    if (actor !== 'console' && actor.accountId === accountId) {
      throw new Forbidden(`an operator cannot ${what}: nobody raises their own plan; another operator, or the server console (paddock accounts), can`, 'self_plan_change');
    }
  }
}

function decider(actor: Actor): string {
  return actor === 'console' ? 'console' : actor.accountId;
}
