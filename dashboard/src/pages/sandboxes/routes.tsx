import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';

export const sandboxRoutes: RouteObject[] = [
  { path: 'sandboxes', element: <NotBuilt area="Sandboxes" /> },
  { path: 'sandboxes/:id/*', element: <NotBuilt area="Sandboxes" /> },
];
