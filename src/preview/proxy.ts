// The preview proxy: a request for `<sandbox_id>-<port>.<preview host>` goes to that sandbox's address
// and port once admitted (admission.ts: only a port the detector sees listening, the per-port rate
// limit, the port's password). Bodies stream both ways; WebSocket (any Upgrade) connections are spliced
// after the 101. A connection whose first request is admitted is relayed as a whole instead
// (relay-process.ts): the front door (front-door.ts, connections.ts) sends it here before Node's HTTP
// server sees it.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Limiter } from '../core/rate-limit.js';
import type { SandboxRuntime } from '../runtime/runtime.js';
import { admit, type Admission, type AdmissionRequest } from './admission.js';
import type { LivePorts } from './live-ports.js';
import { requestHeaders, responseHeaders } from './headers.js';
import type { PreviewHosts, PreviewTarget } from './host.js';
import { login } from './login.js';
import { errorPage } from './password-page.js';
import type { PreviewProtection } from './protection.js';
import { nothingListening, sendPage, UNAVAILABLE, writeRawPage } from './refusals.js';
import { RelayProcess, type RelayGroup } from './relay-process.js';
import type { RequestHead } from '../core/net/request-head.js';
import type { Logger } from '../core/logging.js';

const ACTIVITY_INTERVAL_MS = 5000;

export interface PreviewProxyOptions {
  hosts: PreviewHosts;
  detector: LivePorts;
  protection: PreviewProtection;
  /** Requests per port per minute. */
  requests: Limiter;
  /** Where the relay connects to a sandbox from (its network namespace). */
  runtime: Pick<SandboxRuntime, 'networkNamespace'>;
  /** Status of a sandbox the detector does not see running, or null when there is no such sandbox. */
  sandboxStatus(id: string): Promise<string | null>;
  recordActivity(id: string): Promise<void>;
  log: Logger;
}

/** A relayed group asks for this share of a port's per-minute limit at a time (at most MAX_GRANT). */
const GRANT_SHARE = 16;
const MAX_GRANT = 4096;

export class PreviewProxy {
  private readonly agent = new http.Agent({ keepAlive: true, maxFreeSockets: 256 });
  private readonly lastActivity = new Map<string, number>();
  /** Client connections with a proxied exchange in flight (streams, WebSockets), cut at shutdown. */
  private readonly open = new Set<Duplex>();
  private readonly relay: RelayProcess;
  /** Connections in the relay process: where one goes when it comes back. */
  private readonly relayed = new Map<net.Socket, { target: PreviewTarget; handBack(leftover: Buffer, first: boolean): void }>();
  private readonly revoked = new WeakSet<RelayGroup>();
  private readonly namespaces = new Map<string, string>();

  constructor(private readonly options: PreviewProxyOptions) {
    this.relay = new RelayProcess({
      grant: (group) => this.grant(group),
      giveBack: (group, tokens, expiresAt) => {
        this.options.requests.giveBack(group.label, tokens, expiresAt).catch((err) => this.options.log.warn({ err }, 'could not give back preview rate-limit tokens'));
      },
      onActivity: (group) => this.noteActivity(group.sandboxId),
      onUnreachable: (client) => {
        const target = this.relayed.get(client)?.target;
        this.relayed.delete(client);
        if (target) writeRawPage(client, nothingListening(target));
        client.destroySoon();
      },
      handBack: (client, leftover, first) => {
        const relayed = this.relayed.get(client);
        this.relayed.delete(client);
        this.open.delete(client);
        if (relayed) relayed.handBack(leftover, first);
        else client.destroy();
      },
      onClosed: (client) => {
        this.relayed.delete(client);
        client.destroy();
      },
      log: options.log,
    });
    options.detector.onChange(() => this.revokeChanged());
  }

  async handleRequest(request: IncomingMessage, response: ServerResponse, target: PreviewTarget): Promise<void> {
    const admission = await this.admit(request, target).catch((err) => this.failed(err));
    if (admission.kind === 'refuse') return sendPage(response, admission.refusal);
    if (admission.kind === 'login') return login(this.options.protection, request, response, target, admission.live);

    const { hosts } = this.options;
    const upstream = http.request({
      host: admission.ip,
      port: target.port,
      method: request.method,
      path: request.url,
      headers: requestHeaders(request, { scheme: hosts.scheme, portIsProtected: admission.live.passwordHash !== null, upgrade: false }),
      agent: this.agent,
      setHost: false,
    });
    this.track(request.socket, response);
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeaders(answer.rawHeaders));
      // Streams (SSE, chunked) show their headers at once, before the first event.
      if (answer.headers['content-length'] === undefined) response.flushHeaders();
      answer.pipe(response);
      answer.on('error', () => response.destroy());
    });
    upstream.on('error', () => {
      if (response.headersSent) response.destroy();
      else sendPage(response, nothingListening(target));
    });
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  }

  async handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, target: PreviewTarget): Promise<void> {
    socket.on('error', () => socket.destroy());
    const admission = await this.admit(request, target).catch((err) => this.failed(err));
    if (admission.kind !== 'proxy')
      return writeRawPage(
        socket,
        admission.kind === 'refuse' ? admission.refusal : { status: 401, html: errorPage('Password required', 'Open the preview in a browser first, or send the password with Basic auth.') },
      );

    const upstream = http.request({
      host: admission.ip,
      port: target.port,
      method: request.method,
      path: request.url,
      headers: requestHeaders(request, { scheme: this.options.hosts.scheme, portIsProtected: admission.live.passwordHash !== null, upgrade: true }),
      setHost: false,
    });
    this.track(socket, socket);
    upstream.on('upgrade', (answer, sandboxSocket, sandboxHead) => {
      const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}`];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
      socket.write(lines.join('\r\n') + '\r\n\r\n');
      if (sandboxHead.length) socket.write(sandboxHead);
      if (head.length) sandboxSocket.write(head);
      sandboxSocket.on('error', () => socket.destroy());
      // A WebSocket can stay open for hours: its messages keep the sandbox active, not only its handshake.
      const active = () => this.noteActivity(target.sandboxId);
      sandboxSocket.on('data', active);
      socket.on('data', active);
      socket.on('close', () => sandboxSocket.destroy());
      sandboxSocket.on('close', () => socket.destroy());
      sandboxSocket.pipe(socket).pipe(sandboxSocket);
    });
    // The server answered without upgrading: pass its answer on and end the connection.
    upstream.on('response', (answer) => {
      const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}`];
      const headers = responseHeaders(answer.rawHeaders);
      for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
      socket.write(lines.join('\r\n') + '\r\nConnection: close\r\n\r\n');
      answer.pipe(socket);
    });
    upstream.on('error', () => writeRawPage(socket, nothingListening(target)));
    upstream.end();
  }

  /**
   * Serves a connection whose first request (`head`, the first bytes of `buffered`) names a preview:
   * a refusal is answered and the connection closed; an admitted one goes to the relay process until
   * a later request needs deciding afresh, which comes back through `handBack` (`first` when the relay
   * could not carry even the admitted request).
   */
  async relayConnection(client: net.Socket, head: RequestHead, buffered: Buffer, target: PreviewTarget, handBack: (client: net.Socket, leftover: Buffer, first: boolean) => void): Promise<void> {
    const onError = () => client.destroy();
    client.on('error', onError);
    const admission = await this.admit(head, target).catch((err) => this.failed(err));
    const netns = admission.kind === 'proxy' ? await this.networkNamespace(target.sandboxId).catch((err) => void this.failed(err)) : undefined;
    if (admission.kind !== 'proxy' || netns === undefined) {
      writeRawPage(client, admission.kind === 'refuse' ? admission.refusal : UNAVAILABLE);
      return void client.destroySoon();
    }
    if (client.destroyed) return;
    const { ip } = admission;
    // The value, not the LivePort: a new password is written into the same object.
    const passwordHash = admission.live.passwordHash;
    const group = this.relayGroup(target, ip, passwordHash);
    this.relayed.set(client, {
      target,
      handBack: (leftover, first) => {
        client.removeListener('error', onError);
        handBack(client, leftover, first);
      },
    });
    this.track(client, client);
    this.relay.relay({
      client,
      initial: buffered,
      group,
      host: head.headers.host ?? '',
      port: target.port,
      netns,
      scheme: this.options.hosts.scheme,
      portIsProtected: passwordHash !== null,
      proof: admission.proof,
    });
  }

  /** The open group for this preview, address and password, or a new one. */
  private relayGroup(target: PreviewTarget, ip: string, passwordHash: string | null): RelayGroup {
    for (const group of this.relay.liveGroups()) {
      if (!this.revoked.has(group) && group.label === target.label && group.ip === ip && group.passwordHash === passwordHash) return group;
    }
    return this.relay.newGroup({ label: target.label, sandboxId: target.sandboxId, port: target.port, ip, passwordHash });
  }

  /** Whether a group's connections may still send requests: its sandbox at the same address, its port listening with the same password. */
  private stillAdmits(group: RelayGroup): boolean {
    const { detector } = this.options;
    if (detector.sandbox(group.sandboxId)?.ip !== group.ip) return false;
    const live = detector.port(group.sandboxId, group.port);
    return !!live && live.protocol === 'http' && live.passwordHash === group.passwordHash;
  }

  /** Rate-limit tokens for a relayed group: a share of the port's window (so a batch wastes little of it), none once its port changed. */
  private async grant(group: RelayGroup): Promise<{ tokens: number; expiresAt: number }> {
    if (this.revoked.has(group) || !this.stillAdmits(group)) return { tokens: 0, expiresAt: 0 };
    const { requests } = this.options;
    const batch = Math.min(MAX_GRANT, Math.max(1, Math.floor(requests.points / GRANT_SHARE)));
    const { granted, expiresAt } = await requests.take(group.label, batch);
    return { tokens: granted, expiresAt };
  }

  private revokeChanged(): void {
    for (const group of this.relay.liveGroups()) {
      if (this.revoked.has(group) || this.stillAdmits(group)) continue;
      this.revoked.add(group);
      this.relay.revoke(group);
    }
    for (const [sandboxId] of this.namespaces) if (!this.options.detector.sandbox(sandboxId)) this.namespaces.delete(sandboxId);
  }

  private async networkNamespace(sandboxId: string): Promise<string> {
    let netns = this.namespaces.get(sandboxId);
    if (netns === undefined) {
      netns = (await this.options.runtime.networkNamespace(sandboxId)) ?? '';
      this.namespaces.set(sandboxId, netns);
    }
    return netns;
  }

  /** Cuts the connections still proxying, so shutdown does not wait for a stream or a WebSocket to end. */
  close(): void {
    this.relay.close();
    for (const socket of this.open) socket.destroy();
    this.agent.destroy();
  }

  private track(socket: Duplex, lifetime: { once(event: 'close', listener: () => void): unknown }): void {
    this.open.add(socket);
    lifetime.once('close', () => this.open.delete(socket));
  }

  private failed(err: unknown): Admission {
    this.options.log.error({ err }, 'preview request failed');
    return { kind: 'refuse', refusal: UNAVAILABLE };
  }

  private admit(request: AdmissionRequest, target: PreviewTarget): Promise<Admission> {
    return admit({ ...this.options, noteActivity: (id) => this.noteActivity(id) }, request, target);
  }

  private noteActivity(sandboxId: string): void {
    const now = Date.now();
    if (now - (this.lastActivity.get(sandboxId) ?? 0) < ACTIVITY_INTERVAL_MS) return;
    this.lastActivity.set(sandboxId, now);
    this.options.recordActivity(sandboxId).catch((err) => this.options.log.warn({ err, sandbox_id: sandboxId }, 'could not record preview activity'));
  }
}
