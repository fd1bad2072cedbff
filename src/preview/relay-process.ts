// The preview relay process (relay/paddock-relay.c) seen from the server: admitted connections are
// passed to it over Node's IPC channel and relayed there, request by request, until one needs deciding
// afresh (it comes back with the bytes not yet sent) or the connection ends. The server keeps its copy
// of each passed socket, not reading it, so a connection handed back is an ordinary socket again and
// one that ended is closed here. Requests after the first need rate-limit tokens, granted in batches
// per group (connections admitted to one preview with one password); a port that changes is revoked.
import { spawn, type ChildProcess } from 'node:child_process';
import type net from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../core/logging.js';

/** src/preview and dist/preview both sit two levels below the package root. */
const relayBinary = fileURLToPath(new URL('../../build/paddock-relay', import.meta.url));

/** Connections admitted to one preview port with one password: they share rate-limit tokens. */
export interface RelayGroup {
  id: number;
  label: string;
  sandboxId: string;
  port: number;
  ip: string;
  passwordHash: string | null;
  connections: number;
}

/** On a protected port, the credential that admitted the first request: later ones must carry it. */
export interface RelayProof {
  /** `cookie`: the preview cookie's `name=value` pair; `basic`: the Authorization header's value. */
  kind: 'cookie' | 'basic';
  value: string;
  /** Epoch ms after which it admits nothing more (the cookie's expiry); 0 for none. */
  until: number;
}

export interface RelayedConnection {
  client: net.Socket;
  /** Bytes read from the client and not yet sent: the admitted request and whatever followed it. */
  initial: Buffer;
  group: RelayGroup;
  /** The Host header of the admitted request: a later request naming another host comes back. */
  host: string;
  port: number;
  /** The sandbox's network namespace, to connect from inside it ('' for the host's). */
  netns: string;
  scheme: string;
  portIsProtected: boolean;
  proof: RelayProof | null;
}

export interface RelayProcessOptions {
  /** Requests the group may send, and until when (epoch ms); 0 tokens sends the next request back. */
  grant(group: RelayGroup): Promise<{ tokens: number; expiresAt: number }>;
  /** The group's last connection ended with `tokens` of a grant unused (granted for the window ending at `expiresAt`). */
  giveBack(group: RelayGroup, tokens: number, expiresAt: number): void;
  onActivity(group: RelayGroup): void;
  /** Nothing accepted the connection to the sandbox: answer the client. */
  onUnreachable(client: net.Socket): void;
  /** A request (and what followed it, `leftover`) must be decided afresh; `first` when it is the admitted request itself. */
  handBack(client: net.Socket, leftover: Buffer, first: boolean): void;
  /** The connection ended (either side closed, or the relay process went away). */
  onClosed(client: net.Socket): void;
  log: Logger;
}

type RelayMessage =
  | { t: 'need'; group: number }
  | { t: 'back'; id: number; first: number; leftover: string }
  | { t: 'closed'; id: number }
  | { t: 'unreachable'; id: number }
  | { t: 'active'; group: number }
  | { t: 'unused'; group: number; tokens: number; expires: number };

interface NodeSocketHandle {
  reading: boolean;
  readStart(): number;
  readStop(): number;
}

const handleOf = (client: net.Socket) => (client as unknown as { _handle: NodeSocketHandle | null })._handle;

/** Whether the socket's handle has the calls a hand-over uses (Node internals, present in Node 20 and 22):
 * without them, a preview connection stays with the server's per-request proxy rather than break. */
export function canHandOver(client: net.Socket): boolean {
  const handle = handleOf(client) as Partial<NodeSocketHandle> | null;
  return !!handle && typeof handle.readStop === 'function' && typeof handle.readStart === 'function' && typeof handle.reading === 'boolean';
}

export class RelayProcess {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private nextGroupId = 1;
  private readonly connections = new Map<number, { client: net.Socket; group: RelayGroup }>();
  private readonly groups = new Map<number, RelayGroup>();
  private closed = false;

  constructor(private readonly options: RelayProcessOptions) {}

  newGroup(fields: Omit<RelayGroup, 'id' | 'connections'>): RelayGroup {
    const group = { ...fields, id: this.nextGroupId++, connections: 0 };
    this.groups.set(group.id, group);
    return group;
  }

  /** Groups with connections in the relay. */
  liveGroups(): Iterable<RelayGroup> {
    return this.groups.values();
  }

  relay(connection: RelayedConnection): void {
    const { client, group } = connection;
    const initial = Buffer.concat([connection.initial, ...takeBuffered(client)]);
    const child = this.process();
    const id = this.nextId++;
    this.connections.set(id, { client, group });
    this.groups.set(group.id, group);
    group.connections++;
    client.setTimeout(0);
    const message = {
      t: 'conn',
      id,
      group: group.id,
      host: connection.host,
      ip: group.ip,
      port: connection.port,
      netns: connection.netns,
      scheme: connection.scheme,
      protected: connection.portIsProtected ? 1 : 0,
      client: client.remoteAddress ?? '',
      initial: initial.toString('base64'),
      ...(connection.proof && { proof: Buffer.from(connection.proof.value, 'latin1').toString('base64'), proof_kind: connection.proof.kind, until: connection.proof.until }),
    };
    // keepOpen: this process keeps its copy of the socket, so a connection coming back is still a net.Socket here.
    child.send(message, client, { keepOpen: true }, (err) => {
      if (err && this.connections.delete(id)) this.ended(client, group);
    });
  }

  /** The group's port changed: its connections send no further request to the sandbox. */
  revoke(group: RelayGroup): void {
    this.child?.send({ t: 'revoke', group: group.id });
  }

  close(): void {
    this.closed = true;
    this.child?.kill('SIGKILL');
    for (const { client } of this.connections.values()) client.destroy();
    this.connections.clear();
  }

  private process(): ChildProcess {
    if (this.child) return this.child;
    const child = spawn(relayBinary, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
    child.on('message', (message: RelayMessage) => this.onMessage(message));
    child.on('error', (err) => this.options.log.error({ err }, 'preview relay could not start'));
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      if (!this.closed) this.options.log.error({ code, signal }, 'preview relay exited; its connections are closed');
      for (const [id, { client, group }] of this.connections) {
        this.connections.delete(id);
        this.ended(client, group);
      }
    });
    child.channel?.unref();
    child.unref();
    this.child = child;
    return child;
  }

  private onMessage(message: RelayMessage): void {
    if (message.t === 'need' || message.t === 'active' || message.t === 'unused') {
      const group = this.groups.get(message.group);
      if (!group) return;
      if (message.t === 'active') return this.options.onActivity(group);
      if (message.t === 'unused') return this.options.giveBack(group, message.tokens, message.expires);
      this.options.grant(group).then(
        ({ tokens, expiresAt }) => this.child?.send({ t: 'grant', group: group.id, tokens, expires: expiresAt }),
        (err) => {
          this.options.log.error({ err }, 'preview relay grant failed');
          this.child?.send({ t: 'grant', group: group.id, tokens: 0, expires: 0 });
        },
      );
      return;
    }
    const connection = this.connections.get(message.id);
    if (!connection) return;
    this.connections.delete(message.id);
    const { client, group } = connection;
    this.release(group);
    if (message.t === 'unreachable') return this.options.onUnreachable(client);
    if (message.t === 'closed') return this.options.onClosed(client);
    readAgain(client);
    this.options.handBack(client, Buffer.from(message.leftover, 'base64'), message.first === 1);
  }

  private ended(client: net.Socket, group: RelayGroup): void {
    this.release(group);
    this.options.onClosed(client);
  }

  private release(group: RelayGroup): void {
    if (--group.connections <= 0) this.groups.delete(group.id);
  }
}

/**
 * Stops this process reading `client` and returns what it had read but not delivered. A paused socket
 * still reads until its buffer is full; the relay process must be the only reader (Node's handle API).
 */
function takeBuffered(client: net.Socket): Buffer[] {
  const chunks: Buffer[] = [];
  for (let chunk = client.read(); chunk !== null; chunk = client.read()) chunks.push(chunk);
  const handle = handleOf(client);
  if (handle) {
    handle.reading = false;
    handle.readStop();
  }
  return chunks;
}

/** Undoes takeBuffered for a connection that came back. The stream may still count on the read it asked
 * for before the handle stopped, so the handle is started here rather than left to resume(). */
function readAgain(client: net.Socket): void {
  const handle = handleOf(client);
  if (!handle || handle.reading || client.destroyed) return;
  handle.reading = true;
  handle.readStart();
}
