import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';
import { sandboxToolRoutes } from './tools/routes';

export const sandboxRoutes: RouteObject[] = [{ path: 'sandboxes', element: <NotBuilt area="Sandboxes" /> }, ...sandboxToolRoutes, { path: 'sandboxes/:id/*', element: <NotBuilt area="Sandbox" /> }];
