import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';

export const alertRoutes: RouteObject[] = [{ path: 'alerts/*', element: <NotBuilt area="Alerts" /> }];
