import type { RouteObject } from 'react-router';
import { pageRoute } from '../page-route';

export const evalRoutes: RouteObject[] = [
  pageRoute('evals', () => import('./ScenariosPage')),
  pageRoute('evals/suites', () => import('./SuitesPage')),
  pageRoute('evals/scenarios/:id', () => import('./ScenarioPage')),
  pageRoute('evals/suites/:id', () => import('./SuitePage')),
];
