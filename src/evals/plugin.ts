// Wires evals into the app: the runner when a sandbox runtime is present, the service and its routes.
import type { FastifyInstance } from 'fastify';
import type { AccountService } from '../accounts/service.js';
import type { Storage } from '../core/db/database.js';
import { SandboxDirectory } from '../sandboxes/directory.js';
import type { SandboxService } from '../sandboxes/service.js';
import { evalRoutes } from './routes.js';
import { EvalRunner } from './runner.js';
import { EvalService } from './service.js';

export interface EvalsDeps {
  storage: Storage;
  accounts: AccountService;
  sandboxes: SandboxService | null;
  /** What a set of sandboxes cost: metered compute plus the LLM spend of their sessions. */
  costOfSandboxes: (sandboxIds: string[]) => Promise<number>;
}

export async function registerEvals(app: FastifyInstance, deps: EvalsDeps): Promise<EvalService> {
  const directory = new SandboxDirectory(deps.storage.db);
  const runner = deps.sandboxes
    ? new EvalRunner({
        db: deps.storage.db,
        sandboxes: deps.sandboxes,
        placesOf: (ids) => directory.placesOf(ids),
        planOf: async (accountId) => (await deps.accounts.getAccount(accountId)).plan,
        costOfSandboxes: deps.costOfSandboxes,
        log: app.log,
      })
    : null;
  const evals = new EvalService(deps.storage.db, runner);
  await app.register(evalRoutes(evals));
  app.addHook('onReady', async () => void (await evals.reapInterrupted()));
  return evals;
}
