import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';

/** A route whose page is its own chunk, loaded when first visited (keeps the first page's JavaScript small). */
export function pageRoute(path: string, load: () => Promise<{ default: ComponentType }>): RouteObject {
  return { path, lazy: async () => ({ Component: (await load()).default }) };
}
