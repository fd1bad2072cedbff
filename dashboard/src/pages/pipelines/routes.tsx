import type { RouteObject } from 'react-router';
import { pageRoute } from '../page-route';

export const pipelineRoutes: RouteObject[] = [
  pageRoute('pipelines', () => import('./PipelinesPage')),
  pageRoute('pipelines/:id', () => import('./PipelinePage')),
  pageRoute('runs', () => import('./RunsPage')),
  pageRoute('runs/:id', () => import('./RunPage')),
];
