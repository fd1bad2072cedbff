import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';

export const overviewRoutes: RouteObject[] = [{ index: true, element: <NotBuilt area="Overview" /> }];
