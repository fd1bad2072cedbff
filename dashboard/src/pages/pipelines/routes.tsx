import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';

export const pipelineRoutes: RouteObject[] = [
  { path: 'pipelines', element: <NotBuilt area="Pipelines" /> },
  { path: 'pipelines/:id/*', element: <NotBuilt area="Pipelines" /> },
  { path: 'runs', element: <NotBuilt area="Pipelines" /> },
  { path: 'runs/:id/*', element: <NotBuilt area="Pipelines" /> },
];
