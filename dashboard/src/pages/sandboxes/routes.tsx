import type { RouteObject } from 'react-router';
import { pageRoute } from '../page-route';
import { sandboxToolRoutes } from './tools/routes';

export const sandboxRoutes: RouteObject[] = [
  pageRoute('sandboxes', () => import('./SandboxListPage')),
  pageRoute('sandboxes/new', () => import('./NewSandboxPage')),
  pageRoute('sandboxes/:id', () => import('./SandboxOverviewPage')),
  pageRoute('sandboxes/:id/ports', () => import('./SandboxPortsPage')),
  pageRoute('sandboxes/:id/snapshots', () => import('./SandboxSnapshotsPage')),
  pageRoute('sandboxes/:id/activity', () => import('./SandboxActivityPage')),
  ...sandboxToolRoutes,
  pageRoute('sandboxes/:id/*', () => import('../NotFoundPage')),
];
