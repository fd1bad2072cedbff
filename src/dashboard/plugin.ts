// The dashboard feature: its sign-in routes (a session cookie) and its built pages and assets.
import type { FastifyInstance } from 'fastify';
import type { AccountService } from '../accounts/service.js';
import { registerDashboardAssets } from './assets.js';
import { dashboardSessionRoutes } from './session-routes.js';

export async function registerDashboard(app: FastifyInstance, options: { accounts: AccountService; sessionTtlSeconds: number; assetsDir?: string }): Promise<void> {
  await app.register(dashboardSessionRoutes(options.accounts, options.sessionTtlSeconds));
  await registerDashboardAssets(app, options.assetsDir);
}
