// Serves the dashboard's built files (dashboard/ → dist/dashboard-assets by `npm run build`): hashed
// assets under /assets/ cached for good, and index.html for every page's URL so that each page is
// reachable by its address. Pages are listed, not caught by a fallback: an unknown path still answers
// the API's JSON 404. Every answer carries a strict Content-Security-Policy: no script but our own.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { HttpError } from '../core/errors.js';

/** Top-level page paths of the dashboard (dashboard/src/routes.tsx keeps the same list). */
export const DASHBOARD_PAGES = ['overview', 'login', 'signup', 'sandboxes', 'pipelines', 'runs', 'sessions', 'evals', 'alerts', 'agents', 'billing', 'settings'] as const;

// xterm.js writes its theme into a <style> element, hence 'unsafe-inline' for styles only; scripts,
// connections, frames and forms stay same-origin.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function defaultAssetsDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/dashboard-assets');
}

function secure(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin').header('x-frame-options', 'DENY');
}

export async function registerDashboardAssets(app: FastifyInstance, assetsDir = defaultAssetsDir()): Promise<void> {
  const indexFile = path.join(assetsDir, 'index.html');
  const built = existsSync(indexFile);
  const indexHtml = built ? readFileSync(indexFile) : null;
  const access = { kind: 'open', limit: 'system' } as const;

  const page = async (_request: unknown, reply: FastifyReply) => {
    if (!indexHtml) throw new HttpError(503, 'the dashboard is not built: run `npm run build`', 'dashboard_not_built');
    return secure(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  };
  const schema = { hide: true };
  app.get('/', { config: { access }, schema }, page);
  for (const name of DASHBOARD_PAGES) {
    app.get(`/${name}`, { config: { access }, schema }, page);
    app.get(`/${name}/*`, { config: { access }, schema }, page);
  }

  if (!built) return;
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/assets/')) route.config = { ...route.config, access };
  });
  await app.register(fastifyStatic, {
    root: path.join(assetsDir, 'assets'),
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    wildcard: true,
    preCompressed: true,
    immutable: true,
    maxAge: '365d',
    setHeaders: (res) => {
      res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
      res.setHeader('x-content-type-options', 'nosniff');
    },
  });
}
