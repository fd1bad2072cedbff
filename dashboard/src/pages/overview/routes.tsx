import type { RouteObject } from 'react-router';

// The index page, as its own chunk like every page (pageRoute takes a path; this one has none).
export const overviewRoutes: RouteObject[] = [{ index: true, lazy: async () => ({ Component: (await import('./OverviewPage')).default }) }];
