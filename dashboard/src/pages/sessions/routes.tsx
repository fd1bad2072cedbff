import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';

export const sessionRoutes: RouteObject[] = [
  { path: 'sessions', element: <NotBuilt area="Sessions" /> },
  { path: 'sessions/:id/*', element: <NotBuilt area="Sessions" /> },
];
