import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';

export const evalRoutes: RouteObject[] = [{ path: 'evals/*', element: <NotBuilt area="Evals" /> }];
