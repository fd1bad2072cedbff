// The state gateway: the one host service a stage sandbox may reach. Sandboxes cannot reach the API
// (the bridge drops traffic to the host, see docs/decisions.md), so this tiny HTTP server listens on
// the bridge address only, on one port nftables lets through (exposedHostPorts), and answers only
// state requests carrying a token minted for one run and one stage:
//   GET    $PADDOCK_STATE_URL          list the run's state
//   GET    $PADDOCK_STATE_URL/<key>    one entry (404 when missing)
//   PUT    $PADDOCK_STATE_URL/<key>    body as the API's set-entry; created_by is the stage name
//   DELETE $PADDOCK_STATE_URL/<key>
// with `Authorization: Bearer $PADDOCK_STATE_TOKEN`. The token names its run and stage and is signed
// with a key that lives only in this process's memory (a sandbox only ever talks to the gateway of the
// server that created it), and it stops working when the run ends.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Database } from '../../core/db/schema.js';
import { errorBody } from '../../core/error-handler.js';
import { HttpError, Invalid, Unauthorized } from '../../core/errors.js';
import type { ExposedHostPort } from '../../runtime/network/index.js';
import type { StateService } from './service.js';
import type { Logger } from '../../core/logging.js';

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const ENDED = ['succeeded', 'failed', 'canceled'];

export function stateGatewayPorts(config: Config): ExposedHostPort[] {
  return config.pipelines.stateGatewayPort ? [{ protocol: 'tcp', port: config.pipelines.stateGatewayPort }] : [];
}

export class StateGateway {
  private readonly key = randomBytes(32);
  private server: http.Server | null = null;
  private address: string | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly state: StateService,
    private readonly port: number,
    private readonly log: Logger,
  ) {}

  /** Listens on `host` (the bridge address); a failure leaves stages without state access, logged. */
  async start(host: string | null): Promise<void> {
    if (!host || !this.port) return;
    const server = http.createServer((request, response) => void this.handle(request, response));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.port, host, () => resolve());
      });
    } catch (error) {
      this.log.warn({ err: error, host, port: this.port }, 'the state gateway could not listen: stage commands get no state access');
      return;
    }
    this.server = server;
    this.address = `http://${host}:${this.port}/v1/state`;
    this.log.info({ url: this.address }, 'state gateway listening for stage sandboxes');
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The variables a stage command gets, or none when the gateway is not listening. */
  accessFor(runId: string, stageName: string): Record<string, string> {
    if (!this.address) return {};
    return { PADDOCK_STATE_URL: this.address, PADDOCK_STATE_TOKEN: this.mint(runId, stageName) };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }

  private mint(runId: string, stageName: string): string {
    const payload = Buffer.from(JSON.stringify([runId, stageName])).toString('base64url');
    return `pst_${payload}.${this.sign(payload)}`;
  }

  private verify(header: string | undefined): { runId: string; stageName: string } | null {
    const match = /^Bearer pst_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(header ?? '');
    if (!match) return null;
    const expected = Buffer.from(this.sign(match[1]));
    const given = Buffer.from(match[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    const [runId, stageName] = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8')) as [string, string];
    return { runId, stageName };
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { ...headers, 'content-type': 'application/json' });
      response.end(body === null ? undefined : JSON.stringify(body));
    };
    try {
      const who = this.verify(request.headers.authorization);
      if (!who) throw new Unauthorized('missing or invalid state token (Authorization: Bearer $PADDOCK_STATE_TOKEN)');
      const run = await this.db.selectFrom('pipeline_runs').select('status').where('id', '=', who.runId).executeTakeFirst();
      if (!run || ENDED.includes(run.status)) throw new HttpError(403, 'the run has ended: its state token no longer works', 'run_ended');
      const url = new URL(request.url ?? '/', 'http://gateway');
      const match = /^\/v1\/state(?:\/(.+))?$/.exec(url.pathname);
      if (!match) throw new HttpError(404, 'not found: use /v1/state or /v1/state/<key>', 'not_found');
      const key = match[1] === undefined ? null : decodeKey(match[1]);
      if (key === undefined) throw new HttpError(400, 'the state key is not valid percent-encoded UTF-8', 'invalid_path');
      if (key === null) {
        if (request.method !== 'GET') throw new HttpError(405, 'only GET on /v1/state', 'method_not_allowed', {}, { allow: 'GET' });
        return send(200, await this.state.list(who.runId));
      }
      switch (request.method) {
        case 'GET':
          return send(200, await this.state.get(who.runId, key));
        case 'DELETE':
          await this.state.delete(who.runId, key);
          return send(204, null);
        case 'PUT': {
          const body = await readJson(request);
          if (body === null || typeof body !== 'object' || Array.isArray(body))
            throw new HttpError(400, 'body must be a JSON object: {value, type?, mime_type?, ttl_seconds?}', 'invalid_field', { field: 'body' });
          const { value, type, mime_type: mimeType, ttl_seconds: ttlSeconds } = body as Record<string, unknown>;
          if (type !== undefined && typeof type !== 'string') throw new Invalid('body.type', 'must be a string');
          if (mimeType !== undefined && typeof mimeType !== 'string') throw new Invalid('body.mime_type', 'must be a string');
          if (ttlSeconds !== undefined && !Number.isInteger(ttlSeconds)) throw new Invalid('body.ttl_seconds', 'must be an integer');
          if (type !== undefined && !['string', 'json', 'file', 'patch', 'artifact'].includes(type as string)) throw new Invalid('body.type', 'must be one of string, json, file, patch, artifact');
          return send(
            200,
            await this.state.put(who.runId, key, { value, type: type as never, mime_type: mimeType as string | undefined, ttl_seconds: ttlSeconds as number | undefined }, who.stageName),
          );
        }
        default:
          throw new HttpError(405, 'use GET, PUT or DELETE', 'method_not_allowed', {}, { allow: 'GET, PUT, DELETE' });
      }
    } catch (error) {
      if (error instanceof HttpError) return send(error.statusCode, errorBody(error.code, error.message, error.details), error.headers);
      this.log.warn({ err: error }, 'state gateway request failed');
      return send(500, errorBody('internal_error', 'internal error'));
    }
  }
}

/** The key as sent, decoded; undefined when its percent-encoding does not decode (decodeURIComponent throws). */
function decodeKey(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

async function readJson(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `body exceeds ${MAX_BODY_BYTES} bytes`, 'payload_too_large');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'body must be JSON', 'invalid_json');
  }
}
