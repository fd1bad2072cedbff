import { Navigate, type RouteObject } from 'react-router';
import { pageRoute } from '../page-route';

export const settingsRoutes: RouteObject[] = [
  { path: 'settings', element: <Navigate to="/settings/keys" replace /> },
  pageRoute('settings/keys', () => import('./KeysPage')),
  pageRoute('settings/secrets', () => import('./SecretsPage')),
  pageRoute('settings/account', () => import('./AccountPage')),
];
