import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';

export const settingsRoutes: RouteObject[] = [{ path: 'settings/*', element: <NotBuilt area="Settings" /> }];
