import type { RouteObject } from 'react-router';
import { pageRoute } from '../../page-route';

/** The sandbox's interactive tools, each a page of its own under /sandboxes/:id/ (xterm only in the terminal's chunk). */
export const sandboxToolRoutes: RouteObject[] = [
  pageRoute('sandboxes/:id/terminal', () => import('./TerminalPage')),
  pageRoute('sandboxes/:id/exec', () => import('./ExecPage')),
  pageRoute('sandboxes/:id/files', () => import('./FilesPage')),
];
