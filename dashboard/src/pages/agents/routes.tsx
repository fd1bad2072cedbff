import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';

export const agentRoutes: RouteObject[] = [{ path: 'agents/*', element: <NotBuilt area="Agents" /> }];
