import type { RouteObject } from 'react-router';
import { pageRoute } from '../page-route';

export const billingRoutes: RouteObject[] = [pageRoute('billing', () => import('./BillingPage'))];
