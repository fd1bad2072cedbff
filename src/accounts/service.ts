// Account rules: signup, login (with brute-force protection), credentials, API keys.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config, Plan } from '../config.js';
import { scopeContains, type Principal, type Scope } from '../core/access.js';
import { isUniqueViolation } from '../core/db/database.js';
import type { Database } from '../core/db/schema.js';
import { Conflict, Forbidden, Invalid, NotFound, TooManyRequests, Unauthorized } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { hashPassword, verifyPassword } from '../core/passwords.js';
import type { Limiter } from '../core/rate-limit.js';
import { isoAfterSeconds, nowIso } from '../core/time.js';
import { CredentialCache } from './credential-cache.js';
import { API_KEY_PREFIX, SESSION_TOKEN_PREFIX, digestSecret, displayPrefix, newApiKey, newSessionToken } from './secrets.js';
import * as store from './store.js';
import type { Logger } from '../core/logging.js';
import { afterCommit } from '../core/db/after-commit.js';
import type { Tx } from '../core/db/handles.js';

export interface AccountView {
  id: string;
  email: string;
  name: string | null;
  plan: Plan;
  created_at: string;
}

export interface ApiKeyView {
  id: string;
  name: string;
  scope: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

const LAST_USED_RESOLUTION_MS = 60_000;
const ACCOUNT_CACHE_MS = 5_000;
/** Hash of a random password: verifying against it costs the same as a real check, for unknown emails. */
const UNKNOWN_ACCOUNT_HASH = hashPassword(randomBytes(16).toString('hex'));

export function accountView(row: store.AccountRow): AccountView {
  return { id: row.id, email: row.email, name: row.name, plan: row.plan, created_at: row.created_at };
}

function apiKeyView(row: store.ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    prefix: row.display_prefix,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
  };
}

function billingAccount(row: store.AccountRow) {
  return { id: row.id, email: row.email, name: row.name, plan: row.plan, createdAt: row.created_at };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class AccountService {
  private readonly cache = new CredentialCache();
  private readonly lastTouchedMs = new Map<string, number>();
  /** Account records, kept as long as credentials are (they change far less often than they are read). */
  private readonly accounts = new Map<string, { view: AccountView; cachedAtMs: number }>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly config: Config,
    private readonly loginFailures: Limiter,
    private readonly log: Logger,
  ) {}

  /** Holds the account's lock in `trx` while a feature checks a per-account limit and inserts within it. */
  async lockForPlanCheck(trx: Kysely<Database>, accountId: string): Promise<void> {
    await store.lockAccount(trx, accountId);
  }

  async signup(input: { email: string; password: string; name?: string }, plan: Plan = 'free') {
    const email = input.email.trim();
    const emailNormalized = normalizeEmail(email);
    if (await store.findAccountByEmail(this.db, emailNormalized)) throw new Conflict('an account with this email already exists', 'already_exists');
    const passwordHash = await hashPassword(input.password);
    const now = nowIso();
    const account: store.AccountRow = {
      id: newId('acc'),
      email,
      email_normalized: emailNormalized,
      name: input.name ?? null,
      password_hash: passwordHash,
      plan,
      created_at: now,
      updated_at: now,
    };
    const apiKey = newApiKey();
    try {
      await this.db.transaction().execute(async (trx) => {
        await store.insertAccount(trx, account);
        await store.insertApiKey(trx, this.keyRow(account.id, 'default', 'full', apiKey, null, now));
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new Conflict('an account with this email already exists', 'already_exists');
      throw error;
    }
    return { account: accountView(account), api_key: apiKey };
  }

  async login(input: { email: string; password: string }) {
    const emailNormalized = normalizeEmail(input.email);
    const guardKey = emailNormalized;
    const used = await this.loginFailures.used(guardKey);
    if (used.consumed >= this.loginFailures.points) {
      throw new TooManyRequests('too many failed logins for this email; try again later', used.retryAfterSeconds);
    }
    const account = await store.findAccountByEmail(this.db, emailNormalized);
    const valid = await verifyPassword(input.password, account?.password_hash ?? (await UNKNOWN_ACCOUNT_HASH));
    if (!account || !valid) {
      await this.loginFailures.consume(guardKey);
      throw new Unauthorized('invalid email or password');
    }
    await this.loginFailures.reset(guardKey);
    const token = newSessionToken();
    const now = nowIso();
    const expiresAt = isoAfterSeconds(this.config.sessionTtlSeconds);
    await store.insertSession(this.db, { id: newId('dss'), account_id: account.id, token_hash: digestSecret(token), created_at: now, expires_at: expiresAt });
    // Logins are rare enough to carry the clean-up of sessions that have run out.
    await store.deleteExpiredSessions(this.db, now);
    return { token, expires_at: expiresAt, account: accountView(account) };
  }

  /** Ends a dashboard session: its token stops authenticating at once, on this server and (uncached) on others. */
  async logout(sessionToken: string): Promise<void> {
    if (!sessionToken.startsWith(SESSION_TOKEN_PREFIX)) return;
    const digest = digestSecret(sessionToken);
    this.cache.forget(digest);
    await store.deleteSessionByHash(this.db, digest);
  }

  /** The principal behind a bearer credential, or null when it is unknown, expired or revoked. */
  async authenticate(credential: string): Promise<Principal | null> {
    if (!credential.startsWith(API_KEY_PREFIX) && !credential.startsWith(SESSION_TOKEN_PREFIX)) return null;
    const digest = digestSecret(credential);
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    const cached = this.cache.get(digest, nowMs);
    if (cached) {
      if (cached.expiresAt !== null && cached.expiresAt <= now) return null;
      this.touch(cached.principal, nowMs);
      return cached.principal;
    }
    if (credential.startsWith(SESSION_TOKEN_PREFIX)) {
      const session = await store.findSessionByHash(this.db, digest);
      if (!session || session.expires_at <= now) return null;
      const principal: Principal = { accountId: session.account_id, plan: session.plan, scope: 'full', keyId: null };
      this.cache.set(digest, principal, session.expires_at, nowMs);
      return principal;
    }
    const key = await store.findApiKeyByHash(this.db, digest);
    if (!key || key.revoked_at !== null || (key.expires_at !== null && key.expires_at <= now)) return null;
    const principal: Principal = { accountId: key.account_id, plan: key.plan, scope: key.scope, keyId: key.id };
    this.cache.set(digest, principal, key.expires_at, nowMs);
    this.touch(principal, nowMs);
    return principal;
  }

  /** Records `last_used_at` at most once a minute per key, off the request's path. */
  private touch(principal: Principal, nowMs: number): void {
    if (!principal.keyId) return;
    const last = this.lastTouchedMs.get(principal.keyId) ?? 0;
    if (nowMs - last < LAST_USED_RESOLUTION_MS) return;
    this.lastTouchedMs.set(principal.keyId, nowMs);
    store.touchApiKey(this.db, principal.keyId, new Date(nowMs).toISOString()).catch((err) => this.log.warn({ err }, 'could not record key use'));
  }

  async getAccount(accountId: string): Promise<AccountView> {
    const nowMs = Date.now();
    const cached = this.accounts.get(accountId);
    if (cached && nowMs - cached.cachedAtMs < ACCOUNT_CACHE_MS) return cached.view;
    const account = await store.findAccountById(this.db, accountId);
    if (!account) throw new NotFound('account');
    const view = accountView(account);
    if (this.accounts.size >= 10_000) this.accounts.clear();
    this.accounts.set(accountId, { view, cachedAtMs: nowMs });
    return view;
  }

  /** Drops what this process remembers of an account, after a change to it. */
  forgetAccount(accountId: string): void {
    this.accounts.delete(accountId);
    this.cache.forgetAccount(accountId);
  }

  async listKeys(accountId: string): Promise<ApiKeyView[]> {
    return (await store.listActiveApiKeys(this.db, accountId)).map(apiKeyView);
  }

  async createKey(principal: Principal, input: { name: string; scope?: Scope; expires_at?: string }) {
    const scope = input.scope ?? 'full';
    if (!scopeContains(principal.scope, scope)) throw new Forbidden(`a ${principal.scope}-scope credential cannot create a ${scope}-scope key`, 'scope_denied');
    let expiresAt: string | null = null;
    if (input.expires_at !== undefined) {
      const when = new Date(input.expires_at);
      if (Number.isNaN(when.getTime())) throw new Invalid('body.expires_at', 'must be an ISO 8601 date-time');
      if (when.getTime() <= Date.now()) throw new Invalid('body.expires_at', 'must be in the future');
      expiresAt = when.toISOString();
    }
    const value = newApiKey();
    const row = this.keyRow(principal.accountId, input.name, scope, value, expiresAt, nowIso());
    await store.insertApiKey(this.db, row);
    return { ...apiKeyView(row), key: value };
  }

  async revokeKey(accountId: string, keyId: string): Promise<void> {
    if (!(await store.revokeApiKey(this.db, accountId, keyId, nowIso()))) throw new NotFound('API key');
    this.cache.forgetKey(keyId);
  }

  async countAccounts(): Promise<number> {
    return store.countAccounts(this.db);
  }

  /** Billing's AccountPlans port: the account as billing needs it, read fresh (never cached). */
  async account(accountId: string): Promise<{ id: string; email: string; name: string | null; plan: Plan; createdAt: string }> {
    const row = await store.findAccountById(this.db, accountId);
    if (!row) throw new NotFound('account');
    return billingAccount(row);
  }

  /**
   * Billing's AccountPlans port: writes the plan inside billing's transaction; once it commits, this
   * process forgets the account's cached credentials so its next request runs on the new plan (other
   * servers on the same database see it within the credential cache's 5 seconds).
   */
  async setPlan(trx: unknown, accountId: string, plan: Plan): Promise<void> {
    const tx = trx as Tx;
    await store.setPlan(tx, accountId, plan, nowIso());
    afterCommit(tx, () => this.forgetAccount(accountId));
  }

  /** Every account, oldest first (operators list them). */
  async allAccounts(): Promise<{ id: string; email: string; name: string | null; plan: Plan; createdAt: string }[]> {
    return (await store.listAccounts(this.db)).map(billingAccount);
  }

  /** The account with this id or email, or null. */
  async findAccount(idOrEmail: string): Promise<{ id: string; email: string; name: string | null; plan: Plan; createdAt: string } | null> {
    const row = (await store.findAccountById(this.db, idOrEmail)) ?? (await store.findAccountByEmail(this.db, normalizeEmail(idOrEmail)));
    return row ? billingAccount(row) : null;
  }

  /** The first account created on this server (the bootstrap account), or null before there is one. */
  async firstAccountId(): Promise<string | null> {
    return (await store.oldestAccount(this.db))?.id ?? null;
  }

  private keyRow(accountId: string, name: string, scope: Scope, value: string, expiresAt: string | null, now: string): store.ApiKeyRow {
    return {
      id: newId('key'),
      account_id: accountId,
      name,
      scope,
      display_prefix: displayPrefix(value),
      key_hash: digestSecret(value),
      created_at: now,
      last_used_at: null,
      expires_at: expiresAt,
      revoked_at: null,
    };
  }
}
