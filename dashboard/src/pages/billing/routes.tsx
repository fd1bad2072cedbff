import type { RouteObject } from 'react-router';
import { NotBuilt } from '../NotBuilt';

export const billingRoutes: RouteObject[] = [{ path: 'billing/*', element: <NotBuilt area="Billing" /> }];
