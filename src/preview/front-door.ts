// The preview front door: once every plugin has added its listeners (Fastify's onReady), it takes over
// the Node server's 'connection', 'request' and 'upgrade' listeners, so preview hosts go to the relay
// (connections.ts) or the proxy (dispatch.ts) and never reach Fastify; everything else is passed on to
// the listeners it took over. core/server-refusals.ts's guard is added after it and stands in front.
import type { FastifyInstance } from 'fastify';
import { PreviewConnections } from './connections.js';
import { routePreviewHosts } from './dispatch.js';
import type { PreviewHosts } from './host.js';
import type { PreviewProxy } from './proxy.js';

export function registerPreviewFrontDoor(app: FastifyInstance, { hosts, proxy }: { hosts: PreviewHosts; proxy: PreviewProxy }): void {
  const connections = new PreviewConnections(app.server, hosts, proxy);
  app.addHook('onReady', async () => {
    routePreviewHosts(app.server, hosts, proxy);
    connections.start();
  });
  app.addHook('preClose', async () => {
    connections.close();
    proxy.close();
  });
}
