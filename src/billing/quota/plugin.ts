// The compute quota in the app: the sweeper started with the server and stopped with it.
import type { FastifyInstance } from 'fastify';
import { QuotaSweeper, type QuotaSweeperDeps } from './sweeper.js';

export function registerQuota(app: FastifyInstance, deps: QuotaSweeperDeps): QuotaSweeper {
  const quota = new QuotaSweeper(deps);
  app.addHook('onReady', async () => quota.start());
  app.addHook('onClose', async () => quota.stop());
  return quota;
}
