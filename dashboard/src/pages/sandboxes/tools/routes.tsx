import type { RouteObject } from 'react-router';
import { NotBuilt } from '../../NotBuilt';

/** The sandbox's interactive tools, each a page of its own under /sandboxes/:id/. */
export const sandboxToolRoutes: RouteObject[] = [
  { path: 'sandboxes/:id/terminal', element: <NotBuilt area="Terminal" /> },
  { path: 'sandboxes/:id/exec', element: <NotBuilt area="Commands" /> },
  { path: 'sandboxes/:id/files', element: <NotBuilt area="Files" /> },
];
