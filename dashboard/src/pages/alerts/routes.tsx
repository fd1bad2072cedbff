import type { RouteObject } from 'react-router';
import { pageRoute } from '../page-route';

export const alertRoutes: RouteObject[] = [
  pageRoute('alerts', () => import('./AlertsPage')),
  pageRoute('alerts/notifications', () => import('./NotificationsPage')),
  pageRoute('alerts/rules', () => import('./RulesPage')),
  pageRoute('alerts/channels', () => import('./ChannelsPage')),
];
