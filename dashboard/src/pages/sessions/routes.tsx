import type { RouteObject } from 'react-router';
import { pageRoute } from '../page-route';

export const sessionRoutes: RouteObject[] = [pageRoute('sessions', () => import('./SessionsPage')), pageRoute('sessions/:id/*', () => import('./SessionPage'))];
