// Every page of the dashboard by URL. Each area lists its own routes (pages/<area>/routes.tsx); the
// server serves index.html for the same top-level paths (src/dashboard/assets.ts DASHBOARD_PAGES).
import { Navigate, type RouteObject } from 'react-router';
import { Layout } from './components/Layout';
import { agentRoutes } from './pages/agents/routes';
import { alertRoutes } from './pages/alerts/routes';
import { billingRoutes } from './pages/billing/routes';
import { evalRoutes } from './pages/evals/routes';
import { overviewRoutes } from './pages/overview/routes';
import { pageRoute } from './pages/page-route';
import { pipelineRoutes } from './pages/pipelines/routes';
import { sandboxRoutes } from './pages/sandboxes/routes';
import { sessionRoutes } from './pages/sessions/routes';
import { settingsRoutes } from './pages/settings/routes';

export const routes: RouteObject[] = [
  pageRoute('/login', () => import('./pages/auth/LoginPage')),
  pageRoute('/signup', () => import('./pages/auth/SignupPage')),
  {
    path: '/',
    element: <Layout />,
    children: [
      ...overviewRoutes,
      { path: 'overview', element: <Navigate to="/" replace /> },
      ...sandboxRoutes,
      ...pipelineRoutes,
      ...evalRoutes,
      ...sessionRoutes,
      ...alertRoutes,
      ...agentRoutes,
      ...billingRoutes,
      ...settingsRoutes,
      pageRoute('*', () => import('./pages/NotFoundPage')),
    ],
  },
];
