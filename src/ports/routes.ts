// HTTP surface of ports: the listening ports of a sandbox and the password of a port's preview.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { SandboxParams } from '../sandboxes/schemas.js';
import type { PortService } from './service.js';
import { ErrorResponse } from '../core/error-body.js';

const access = { access: { kind: 'key', area: 'sandboxes' } } as const;
/** Changing a preview's protection changes who can reach what the sandbox serves: not for narrower scopes on a confidential sandbox. */
const protection = { access: { kind: 'key', area: 'sandboxes', reaches: [{ kind: 'sandbox', from: 'params', field: 'id' }] } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 409: Err, 429: Err };

const PortParams = Type.Object({ ...SandboxParams.properties, port: Type.Integer({ minimum: 1, maximum: 65535 }) });
const Port = Type.Object({
  port: Type.Integer(),
  protocol: Type.Union([Type.Literal('http'), Type.Literal('tcp')], { description: '`http` when the port answered an HTTP request when it was detected, else `tcp`.' }),
  preview_url: Type.Union([Type.String(), Type.Null()], { description: 'Public address of the port through the preview proxy; null for tcp ports.' }),
  protected: Type.Boolean(),
  detected_at: Type.String({ format: 'date-time' }),
});
const Protection = Type.Object({ port: Type.Integer(), protected: Type.Boolean(), preview_url: Type.String() });
const ProtectBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });

export function portRoutes(service: PortService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.get('/v1/sandboxes/:id/ports', {
      config: access,
      schema: {
        tags: ['sandboxes'],
        summary: 'List listening ports',
        description:
          'TCP ports a process inside the sandbox listens on, read every 2 s from the sandbox network namespace: a port appears within about 2 s of `listen()` and disappears within about 2 s of closing. Sockets bound only to loopback (127.0.0.1, ::1) are not listed: the proxy cannot reach them, so bind servers to 0.0.0.0. `protocol` is `http` when the port answered an HTTP request when it was detected; `preview_url` (null for tcp) serves it publicly as `<scheme>://<sandbox_id>-<port>.<PADDOCK_PREVIEW_HOST>` — any method, streaming, WebSocket upgrades, `X-Forwarded-For/-Proto/-Host` set, Paddock API keys and the preview cookie stripped, 100 requests/minute per port (every request counts, also the later ones of a kept-alive connection, which Paddock relays to the sandbox once its first request is admitted).',
        params: SandboxParams,
        response: { 200: Type.Array(Port), ...errors },
      },
      handler: async (request) => service.list(request.principal!.accountId, request.params.id),
    });

    app.post('/v1/sandboxes/:id/ports/:port/protect', {
      config: { ...protection, idempotent: true },
      schema: {
        tags: ['sandboxes'],
        summary: 'Protect a port preview with a password',
        description:
          'From now on the preview asks for the password: a browser gets a password page, then a signed HttpOnly cookie valid 7 days for that preview host only; a script sends it with HTTP Basic auth (any user name). Every request needs the cookie or the password, including later requests on a keep-alive connection. Wrong passwords answer 401; 10 wrong passwords in 15 minutes for one port answer 429 until the window passes. Calling it again replaces the password and signs out every browser. The port need not be listening yet, and the protection survives the server inside stopping and starting again. Only a hash of the password is stored. Remove it with DELETE on the same path.',
        params: PortParams,
        body: ProtectBody,
        response: { 200: Protection, ...errors },
      },
      handler: async (request) => service.protect(request.principal!.accountId, request.params.id, request.params.port, request.body.password),
    });

    app.delete('/v1/sandboxes/:id/ports/:port/protect', {
      config: protection,
      schema: {
        tags: ['sandboxes'],
        summary: 'Remove the password of a port preview',
        description: 'The preview becomes public again. Idempotent: answers `protected: false` also for a port that had no password.',
        params: PortParams,
        response: { 200: Protection, ...errors },
      },
      handler: async (request) => service.unprotect(request.principal!.accountId, request.params.id, request.params.port),
    });
  };
}
