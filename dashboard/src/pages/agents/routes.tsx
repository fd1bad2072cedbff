import type { RouteObject } from 'react-router';
import { pageRoute } from '../page-route';

export const agentRoutes: RouteObject[] = [
  pageRoute('agents', () => import('./AgentsPage')),
  pageRoute('agents/new', () => import('./NewAgentPage')),
  pageRoute('agents/tasks', () => import('./TasksPage')),
  pageRoute('agents/tasks/:id', () => import('./TaskPage')),
  pageRoute('agents/:id', () => import('./AgentPage')),
];
