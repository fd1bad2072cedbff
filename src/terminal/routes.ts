// HTTP surface of terminals: the WebSocket that runs a login shell, the tickets browsers use to open it,
// and the list of a sandbox's sessions. The PTY is opened before the upgrade, so every failure
// (credentials, scope, unknown sandbox, not running, unknown session) is a normal JSON error.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import type { RawData, WebSocket } from 'ws';
import type { Config } from '../config.js';
import { HttpError, NotFound } from '../core/errors.js';
import { SandboxNotRunning } from '../runtime/errors.js';
import type { SandboxRuntime } from '../runtime/runtime.js';
import { SandboxParams } from '../sandboxes/schemas.js';
import type { SandboxService } from '../sandboxes/service.js';
import { ActivityThrottle } from './activity.js';
import { CLOSE, encodeControl, MAX_TERMINAL_COLS, MAX_TERMINAL_ROWS, parseClientFrame } from './framing.js';
import { TerminalSessions, type TerminalSession, type TerminalViewer } from './sessions.js';
import { TerminalTickets, TICKET_TTL_SECONDS } from './tickets.js';
import { ErrorResponse } from '../core/error-body.js';

const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 409: Err, 429: Err };
const DEFAULT_SIZE = { cols: 80, rows: 24 };
const MAX_INPUT_FRAME_BYTES = 1024 * 1024;
/** Output queued for a client that does not read it; past this the connection is closed (the session
 * stays, detached, and can be re-attached), so a flood like `yes` cannot grow server memory. */
const MAX_QUEUED_OUTPUT_BYTES = 8 * 1024 * 1024;

const TerminalQuery = Type.Object(
  {
    ticket: Type.Optional(Type.String({ maxLength: 200, description: 'A single-use ticket from POST /v1/sandboxes/{id}/terminal/tickets, instead of the Authorization header.' })),
    session: Type.Optional(Type.String({ maxLength: 64, description: 'Re-attach this session (`term_…`) instead of starting a new shell.' })),
    cols: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TERMINAL_COLS, description: 'Initial width; default 80.' })),
    rows: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TERMINAL_ROWS, description: 'Initial height; default 24.' })),
  },
  { additionalProperties: false },
);

const TerminalSessionView = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  cols: Type.Integer(),
  rows: Type.Integer(),
  attached: Type.Boolean(),
  last_activity_at: Type.String({ format: 'date-time' }),
});

const TERMINAL_DESCRIPTION = `Upgrades to a WebSocket running a login shell (bash, else sh) on a real TTY in /workspace with the sandbox env, \`TERM=xterm-256color\`.
Use \`ws://\` when Paddock is reached over plain HTTP and \`wss://\` over TLS (Paddock itself or a TLS-terminating proxy in front of it): the scheme is the server's.

**Authentication.** \`Authorization: Bearer <API_KEY>\` (scope \`full\` or \`sandbox\`; \`read\` keys get 403), or — for browsers, which cannot set headers on a WebSocket — \`?ticket=\` from POST /v1/sandboxes/{id}/terminal/tickets. Never put an API key in the URL.
Every failure is answered before the upgrade as a JSON error, in this order: 401 (no or bad credential, ticket unknown, expired, already used or for another sandbox), 403 (scope), 404 (no such sandbox in this account), 426 (not a WebSocket upgrade), 409 (sandbox not running, or already 10 sessions), 404 (unknown \`session\`).

**Framing.**
- Client → server: binary frames are always keystrokes (raw bytes). A text frame is a control message when the whole frame is a JSON object with a string \`type\`; any other text frame is keystrokes (UTF-8). The control message is \`{"type":"resize","cols":120,"rows":40}\`; an unknown type or bad size is answered with \`{"type":"error","message":"…"}\` and otherwise ignored. A resize reaches the shell a moment later (the runtime learns it from SIGWINCH): keystrokes sent in the same instant may still see the old size. A client that may send such JSON as input (a paste) sends its input as binary frames.
- Server → client: terminal output only as binary frames; control messages only as text frames (JSON): first \`{"type":"session","id":"term_…","reattached":false,"cols":80,"rows":24}\`, and \`{"type":"exit","exit_code":0}\` when the shell exits, followed by close code 1000.

**Sessions survive a dropped connection** for \`PADDOCK_TERMINAL_GRACE_SECONDS\` (default 60): connect again with \`?session=term_…\` (a new connection takes a session over from one still attached, which is closed with 4001) and the last 64 KiB of output is replayed after the \`session\` message (\`reattached\`: true). After the grace period the shell is killed and the session is gone (404).

**Close codes.** 1000 shell exited; 1001 server shutting down; 4000 sandbox destroyed; 4001 session attached by another connection; 4002 sandbox paused; 4003 the node holding the sandbox went away (reached through another node, scale-out); 4004 the session ended while connecting; 4008 client too slow (over 8 MiB of output unread: the session stays and can be re-attached).

Terminal input and output count as sandbox activity (\`last_activity_at\`, written at most every 5 s).`;

function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The URL a browser opens: same host and scheme as the ticket request (wss behind TLS). */
function terminalUrl(request: FastifyRequest, sandboxId: string, ticket: string): string {
  const secure = request.protocol === 'https' || request.headers['x-forwarded-proto'] === 'https';
  return `${secure ? 'wss' : 'ws'}://${request.host}/v1/sandboxes/${sandboxId}/terminal?ticket=${encodeURIComponent(ticket)}`;
}

export function terminalRoutes(service: SandboxService, runtime: SandboxRuntime, config: Config): FastifyPluginAsyncTypebox {
  return async function register(app) {
    await app.register(websocket, { options: { maxPayload: MAX_INPUT_FRAME_BYTES } });
    const tickets = new TerminalTickets();
    const activity = new ActivityThrottle(
      (sandboxId) => service.recordActivity(sandboxId),
      (error, sandboxId) => app.log.warn({ err: error, sandbox_id: sandboxId }, 'could not record terminal activity'),
    );
    const sessions = new TerminalSessions(runtime, activity, config.terminalGraceSeconds * 1000);
    service.lifecycle.subscribe({ name: 'terminals', beforeTeardown: (sandbox) => sessions.closeTerminals(sandbox.id, CLOSE.sandboxDestroyed) });
    app.addHook('onClose', async () => sessions.closeAll());

    /** The session each upgrade request will attach to, found or opened before the upgrade. */
    const pending = new WeakMap<FastifyRequest, TerminalSession>();

    async function runningSandbox(accountId: string, id: string) {
      return mustBeRunning(await service.get(accountId, id));
    }

    function mustBeRunning<T extends { status: string }>(row: T): T {
      if (row.status !== 'running') throw new HttpError(409, `sandbox is ${row.status}; a terminal needs a running sandbox`, 'sandbox_not_running');
      return row;
    }

    app.post('/v1/sandboxes/:id/terminal/tickets', {
      config: { access: { kind: 'key', area: 'sandboxes', reaches: [{ kind: 'sandbox', from: 'params', field: 'id' }] }, idempotent: true },
      schema: {
        tags: ['terminal'],
        summary: 'Get a single-use ticket to open the terminal from a browser',
        description: `Answers \`{ticket, expires_at, url}\`: \`url\` is the terminal WebSocket URL with \`?ticket=\` (same host, \`ws\` or \`wss\` as this request came in; append \`&session=\`, \`&cols=\`, \`&rows=\` as needed). The ticket opens the terminal of this sandbox once, within ${TICKET_TTL_SECONDS} seconds, for the account and scope of the key that asked for it; reused, expired or presented for another sandbox it answers 401. 409 when the sandbox is not running.`,
        params: SandboxParams,
        response: { 201: Type.Object({ ticket: Type.String(), expires_at: Type.String({ format: 'date-time' }), url: Type.String() }), ...errors },
      },
      handler: async (request, reply) => {
        const principal = request.principal!;
        await runningSandbox(principal.accountId, request.params.id);
        const { ticket, expiresAt } = tickets.issue(principal, request.params.id);
        return reply.code(201).send({ ticket, expires_at: expiresAt.toISOString(), url: terminalUrl(request, request.params.id, ticket) });
      },
    });

    app.get('/v1/sandboxes/:id/terminal/sessions', {
      config: { access: { kind: 'key', area: 'sandboxes' } },
      schema: {
        tags: ['terminal'],
        summary: "List the sandbox's terminal sessions",
        description: 'Sessions still alive: attached to a WebSocket, or detached and within their grace period. Oldest first.',
        params: SandboxParams,
        response: { 200: Type.Array(TerminalSessionView), ...errors },
      },
      handler: async (request) => {
        await service.get(request.principal!.accountId, request.params.id);
        return sessions.list(request.params.id);
      },
    });

    app.route({
      method: 'GET',
      url: '/v1/sandboxes/:id/terminal',
      config: {
        access: { kind: 'ticket', area: 'sandboxes', writes: true, reaches: [{ kind: 'sandbox', from: 'params', field: 'id' }], redeem: (ticket, params) => tickets.redeem(ticket, params.id) },
      },
      schema: {
        tags: ['terminal'],
        summary: 'Open an interactive terminal (WebSocket)',
        description: TERMINAL_DESCRIPTION,
        params: SandboxParams,
        querystring: TerminalQuery,
        response: { ...errors, 426: Err },
      },
      preHandler: async (request) => {
        const { id } = request.params;
        const { session: sessionId, cols, rows } = request.query;
        // Ownership first: another account's sandbox is a 404 whatever else is wrong with the request.
        const sandbox = await service.get(request.principal!.accountId, id);
        if (!request.ws) throw new HttpError(426, 'this endpoint is a WebSocket: connect with ws:// or wss:// and Upgrade: websocket', 'upgrade_required', {}, { upgrade: 'websocket' });
        mustBeRunning(sandbox);
        if (sessionId) {
          const session = sessions.find(id, sessionId);
          if (!session) throw new NotFound('terminal session');
          if (cols && rows) sessions.resize(session, cols, rows);
          pending.set(request, session);
          return;
        }
        try {
          pending.set(request, await sessions.open(id, { cols: cols ?? DEFAULT_SIZE.cols, rows: rows ?? DEFAULT_SIZE.rows }));
        } catch (error) {
          if (error instanceof SandboxNotRunning) throw new HttpError(409, `${error.message}; a terminal needs a running sandbox`, 'sandbox_not_running');
          throw error;
        }
      },
      // Reached only by requests that are not upgrades, which the preHandler already refused.
      handler: async () => {
        throw new HttpError(426, 'this endpoint is a WebSocket', 'upgrade_required');
      },
      wsHandler: (socket: WebSocket, request) => {
        const session = pending.get(request)!;
        const viewer: TerminalViewer = {
          output: (chunk) => {
            if (socket.bufferedAmount > MAX_QUEUED_OUTPUT_BYTES) socket.close(CLOSE.clientTooSlow.code, CLOSE.clientTooSlow.reason);
            else socket.send(chunk, { binary: true });
          },
          control: (message) => socket.send(encodeControl(message), { binary: false }),
          close: (code, reason) => socket.close(code, reason),
        };
        socket.on('message', (data, isBinary) => {
          const frame = parseClientFrame(asBuffer(data), isBinary);
          if (frame.kind === 'input') sessions.input(session, frame.data);
          else if (frame.kind === 'resize') sessions.resize(session, frame.cols, frame.rows);
          else viewer.control({ type: 'error', message: frame.message });
        });
        socket.on('close', () => sessions.detach(session, viewer));
        sessions.attach(session, viewer);
      },
    });
  };
}
