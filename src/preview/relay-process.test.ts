// The preview relay process (build/paddock-relay) with real sockets on the host: a client connection
// admitted here is passed to it and relayed to an HTTP server; what the server receives, what the
// client reads back and when a connection comes back are checked byte for byte.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/helpers/wait-for.js';
import { canHandOver, RelayProcess, type RelayGroup, type RelayProof } from './relay-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
}

/** What the relay told this side about one client connection. */
interface Outcome {
  kind: 'back' | 'closed' | 'unreachable';
  leftover?: Buffer;
  first?: boolean;
}

let upstream: http.Server;
let upstreamPort: number;
let front: net.Server;
let frontPort: number;
let relay: RelayProcess;
const seen: Seen[] = [];
const outcomes = new Map<net.Socket, (outcome: Outcome) => void>();
let tokens: number[] = [];
let grants = 0;
const givenBack: number[] = [];
let group: RelayGroup;
let relayTo = { port: 0, netns: '' };
/** What admitted the first request of the next connection (the port is protected here). */
let proof: RelayProof | null = null;

beforeAll(async () => {
  execFileSync('bash', ['scripts/build-relay.sh'], { stdio: 'inherit' });
  // Answers with what it saw; /slow streams its chunked answer over 300 ms; /nobody answers 204.
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString() });
      if (req.url === '/slow') {
        res.write('slow ');
        setTimeout(() => res.end('answer'), 300);
      } else if (req.url === '/nobody') {
        res.writeHead(204).end();
      } else {
        res.end(`answer to ${req.method} ${req.url}`);
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as net.AddressInfo).port;

  relay = new RelayProcess({
    grant: async () => {
      grants++;
      return { tokens: tokens.shift() ?? 0, expiresAt: Date.now() + 60_000 };
    },
    giveBack: (_group, unusedTokens) => givenBack.push(unusedTokens),
    onActivity: () => undefined,
    onUnreachable: (client) => outcomes.get(client)?.({ kind: 'unreachable' }),
    handBack: (client, leftover, first) => outcomes.get(client)?.({ kind: 'back', leftover, first }),
    onClosed: (client) => {
      outcomes.get(client)?.({ kind: 'closed' });
      client.destroy();
    },
    log: pino({ level: 'silent' }),
  });
  // The front door's part: read the first head, then pass the connection with what was read.
  front = net.createServer((client) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.indexOf('\r\n\r\n') === -1) return;
      client.removeListener('data', onData);
      client.pause();
      group = relay.newGroup({ label: 'sbx-3000', sandboxId: 'sbx', port: 3000, ip: '127.0.0.1', passwordHash: null });
      relay.relay({ client, initial: buffered, group, host: 'sbx-3000.localhost', port: relayTo.port, netns: relayTo.netns, scheme: 'https', portIsProtected: true, proof });
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  frontPort = (front.address() as net.AddressInfo).port;
});

afterAll(async () => {
  relay.close();
  front.close();
  upstream.close();
});

afterEach(() => {
  seen.length = 0;
  tokens = [];
  grants = 0;
  givenBack.length = 0;
  relayTo = { port: upstreamPort, netns: '' };
  proof = null;
});

/** A client connection whose relay outcome and received bytes can be awaited. */
function connect(): { socket: net.Socket; received: () => string; outcome: Promise<Outcome>; closed: Promise<void> } {
  relayTo.port ||= upstreamPort;
  const socket = net.connect({ host: '127.0.0.1', port: frontPort });
  let received = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  // The server side of this connection is the one the relay reports about: matched by port pairs.
  const outcome = new Promise<Outcome>((resolve) => {
    front.once('connection', (serverSide: net.Socket) => outcomes.set(serverSide, resolve));
  });
  return { socket, received: () => received.toString('latin1'), outcome, closed };
}

const headersOf = (request: Seen) => {
  const headers: Record<string, string[]> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2) (headers[request.rawHeaders[i].toLowerCase()] ??= []).push(request.rawHeaders[i + 1]);
  return headers;
};

describe('the preview relay process', () => {
  it('sets X-Forwarded-* on every request and removes Paddock credentials, the preview cookie and forged forwarding headers', async () => {
    tokens = [10];
    const { socket, received } = connect();
    socket.write('GET /first HTTP/1.1\r\nHost: sbx-3000.localhost\r\nAuthorization: Bearer theirs\r\nCookie: app=1\r\n\r\n');
    await waitFor('answer to GET /first', () => received().includes('answer to GET /first'), 5000, 10);
    socket.write(
      'GET /second HTTP/1.1\r\nHost: sbx-3000.localhost\r\nAuthorization: Basic eDp5\r\nCookie: a=1; paddock_preview=9.sig; b=2\r\nCookie: paddock_preview=x\r\n' +
        'X-Forwarded-For: 9.9.9.9\r\nX-Forwarded-Host: evil\r\nX-Forwarded-Proto: gopher\r\nProxy-Authorization: Basic eA==\r\nX-App: kept\r\n\r\n',
    );
    await waitFor('answer to GET /second', () => received().includes('answer to GET /second'), 5000, 10);
    const [first, second] = seen.map(headersOf);
    expect(first.authorization).toEqual(['Bearer theirs']);
    expect(first.cookie).toEqual(['app=1']);
    expect(first['x-forwarded-for']).toEqual(['127.0.0.1']);
    expect(first['x-forwarded-proto']).toEqual(['https']);
    expect(first['x-forwarded-host']).toEqual(['sbx-3000.localhost']);
    // The port is protected here, so Basic auth is the preview password.
    expect(second.authorization).toBeUndefined();
    expect(second.cookie).toEqual(['a=1; b=2']);
    expect(second['x-forwarded-for']).toEqual(['9.9.9.9, 127.0.0.1']);
    expect(second['x-forwarded-host']).toEqual(['sbx-3000.localhost']);
    expect(second['x-forwarded-proto']).toEqual(['https']);
    expect(second['proxy-authorization']).toBeUndefined();
    expect(second['x-app']).toEqual(['kept']);
    socket.destroy();
  });

  it('carries pipelined Content-Length and chunked bodies arriving a byte at a time, answered in order', async () => {
    tokens = [10];
    const { socket, received } = connect();
    const bytes =
      'POST /a HTTP/1.1\r\nHost: sbx-3000.localhost\r\nContent-Length: 5\r\n\r\nhello' +
      'POST /b HTTP/1.1\r\nHost: sbx-3000.localhost\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n' +
      'GET /c HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n';
    socket.setNoDelay(true);
    for (const byte of Buffer.from(bytes)) {
      socket.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitFor('answer to GET /c', () => received().includes('answer to GET /c'), 5000, 10);
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/a', 'hello'],
      ['POST', '/b', 'abcde'],
      ['GET', '/c', ''],
    ]);
    const answers = received();
    expect(answers.indexOf('POST /a')).toBeLessThan(answers.indexOf('POST /b'));
    expect(answers.indexOf('POST /b')).toBeLessThan(answers.indexOf('GET /c'));
    socket.destroy();
  });

  it('sends a request for another host back only once the answers before it are complete, with exactly its bytes', async () => {
    tokens = [10];
    const { socket, received, outcome } = connect();
    const other = 'GET /elsewhere HTTP/1.1\r\nHost: api.localhost\r\n\r\nGET /after HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n';
    socket.write(`GET /slow HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n${other}`);
    const result = await outcome;
    expect(result.kind).toBe('back');
    expect(result.first).toBe(false);
    expect(result.leftover!.toString()).toBe(other);
    // The slow answer had all its bytes out (its last chunk included) before the connection came back.
    await waitFor('the last chunk', () => received().endsWith('0\r\n\r\n'), 5000, 10);
    expect(received()).toContain('slow ');
    expect(received()).toContain('answer');
    expect(seen.map((s) => s.url)).toEqual(['/slow']);
    socket.destroy();
  });

  it('follows answers without a body (HEAD, 204) before sending a connection back', async () => {
    tokens = [10];
    const { socket, received, outcome } = connect();
    socket.write('HEAD /head HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\nGET /nobody HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\nGET / HTTP/1.1\r\nHost: other.localhost\r\n\r\n');
    const result = await outcome;
    expect(result.kind).toBe('back');
    expect(result.leftover!.toString()).toBe('GET / HTTP/1.1\r\nHost: other.localhost\r\n\r\n');
    await waitFor('HTTP/1.1 204', () => received().includes('HTTP/1.1 204'), 5000, 10);
    socket.destroy();
  });

  it('asks for tokens when it has none, and sends a request back when none are granted', async () => {
    tokens = [2, 0];
    const { socket, received, outcome } = connect();
    for (let i = 1; i <= 3; i++) {
      socket.write(`GET /n${i} HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n`);
      await waitFor(`answer to GET /n${i}`, () => received().includes(`answer to GET /n${i}`), 5000, 10);
    }
    socket.write('GET /n4 HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    const result = await outcome;
    expect(result.kind).toBe('back');
    expect(result.leftover!.toString()).toBe('GET /n4 HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    expect(seen.map((s) => s.url)).toEqual(['/n1', '/n2', '/n3']);
    expect(grants).toBe(2);
    socket.destroy();
  });

  it("reports a group's unused tokens when its last connection ends, and none it spent", async () => {
    tokens = [10];
    const { socket, received, outcome } = connect();
    for (const path of ['/admitted', '/t1', '/t2']) {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n`);
      await waitFor(`answer to GET ${path}`, () => received().includes(`answer to GET ${path}`), 5000, 10);
    }
    socket.end();
    expect((await outcome).kind).toBe('closed');
    // The admitted request was counted by the server; two of the ten tokens were spent.
    expect(givenBack).toEqual([8]);
  });

  it('reports unused tokens when the last connection is sent back', async () => {
    tokens = [5];
    const { socket, received, outcome } = connect();
    socket.write('GET /admitted HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\nGET /t1 HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    await waitFor('answer to GET /t1', () => received().includes('answer to GET /t1'), 5000, 10);
    socket.write('GET / HTTP/1.1\r\nHost: api.localhost\r\n\r\n');
    expect((await outcome).kind).toBe('back');
    await waitFor('the connection to be given back', () => givenBack.length > 0, 5000, 10);
    expect(givenBack).toEqual([4]);
    socket.destroy();
  });

  it('sends the next request back once the group is revoked', async () => {
    tokens = [10];
    const { socket, received, outcome } = connect();
    socket.write('GET /before HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    await waitFor('answer to GET /before', () => received().includes('answer to GET /before'), 5000, 10);
    socket.write('GET /granted HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    await waitFor('answer to GET /granted', () => received().includes('answer to GET /granted'), 5000, 10);
    relay.revoke(group);
    await sleep(100);
    socket.write('GET /revoked HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    expect((await outcome).kind).toBe('back');
    expect(seen.map((s) => s.url)).toEqual(['/before', '/granted']);
    socket.destroy();
  });

  it('carries later requests only with the preview cookie that admitted the first, and sends back one without it', async () => {
    tokens = [10];
    proof = { kind: 'cookie', value: 'paddock_preview=9.sig', until: Date.now() + 60_000 };
    const { socket, received, outcome } = connect();
    socket.write('GET /first HTTP/1.1\r\nHost: sbx-3000.localhost\r\nCookie: paddock_preview=9.sig\r\n\r\n');
    await waitFor('answer to GET /first', () => received().includes('answer to GET /first'), 5000, 10);
    socket.write('GET /second HTTP/1.1\r\nHost: sbx-3000.localhost\r\nCookie: a=1;paddock_preview=9.sig ; b=2\r\n\r\n');
    await waitFor('answer to GET /second', () => received().includes('answer to GET /second'), 5000, 10);
    const other = 'GET /third HTTP/1.1\r\nHost: sbx-3000.localhost\r\nCookie: paddock_preview=9.sig2\r\n\r\n';
    socket.write(other);
    const result = await outcome;
    expect(result).toMatchObject({ kind: 'back', first: false });
    expect(result.leftover!.toString()).toBe(other);
    expect(seen.map((s) => s.url)).toEqual(['/first', '/second']);
    expect(headersOf(seen[1]).cookie).toEqual(['a=1; b=2']);
    socket.destroy();
  });

  it('sends back a request once the cookie that admitted the connection has expired', async () => {
    tokens = [10];
    proof = { kind: 'cookie', value: 'paddock_preview=9.sig', until: Date.now() + 300 };
    const { socket, received, outcome } = connect();
    socket.write('GET /first HTTP/1.1\r\nHost: sbx-3000.localhost\r\nCookie: paddock_preview=9.sig\r\n\r\n');
    await waitFor('answer to GET /first', () => received().includes('answer to GET /first'), 5000, 10);
    socket.write('GET /soon HTTP/1.1\r\nHost: sbx-3000.localhost\r\nCookie: paddock_preview=9.sig\r\n\r\n');
    await waitFor('answer to GET /soon', () => received().includes('answer to GET /soon'), 5000, 10);
    await sleep(400);
    socket.write('GET /late HTTP/1.1\r\nHost: sbx-3000.localhost\r\nCookie: paddock_preview=9.sig\r\n\r\n');
    expect((await outcome).kind).toBe('back');
    expect(seen.map((s) => s.url)).toEqual(['/first', '/soon']);
    socket.destroy();
  });

  it('carries later requests only with the Basic credentials that admitted the first', async () => {
    tokens = [10];
    proof = { kind: 'basic', value: 'Basic eDp5', until: 0 };
    const { socket, received, outcome } = connect();
    socket.write('GET /first HTTP/1.1\r\nHost: sbx-3000.localhost\r\nAuthorization: Basic eDp5\r\n\r\n');
    await waitFor('answer to GET /first', () => received().includes('answer to GET /first'), 5000, 10);
    socket.write('GET /second HTTP/1.1\r\nHost: sbx-3000.localhost\r\nAuthorization:   Basic eDp5 \r\n\r\n');
    await waitFor('answer to GET /second', () => received().includes('answer to GET /second'), 5000, 10);
    socket.write('GET /third HTTP/1.1\r\nHost: sbx-3000.localhost\r\nAuthorization: Basic eDp6\r\n\r\n');
    expect((await outcome).kind).toBe('back');
    expect(seen.map((s) => s.url)).toEqual(['/first', '/second']);
    expect(headersOf(seen[1]).authorization).toBeUndefined();
    socket.destroy();
  });

  it('reports a sandbox port nothing listens on', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    relayTo = { port: closedPort, netns: '' };
    const { socket, outcome } = connect();
    socket.write('GET / HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    expect((await outcome).kind).toBe('unreachable');
    socket.destroy();
  });

  it('answers 400 to a request whose chunked body is malformed, after the answers before it, and ends the connection', async () => {
    tokens = [10];
    const { socket, received, outcome, closed } = connect();
    socket.write('GET /slow HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\nPOST /bad HTTP/1.1\r\nHost: sbx-3000.localhost\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n');
    expect((await outcome).kind).toBe('closed');
    await closed;
    const answers = received();
    expect(answers).toMatch(/^HTTP\/1.1 200 OK\r\n[\s\S]*slow [\s\S]*answer[\s\S]*0\r\n\r\nHTTP\/1.1 400 Bad Request\r\n[\s\S]*Connection: close\r\n\r\nThe request's chunked body is malformed.\n$/);
    expect(seen.map((s) => s.url)).toEqual(['/slow']);
  });

  it('answers 400 to a malformed chunked body the client goes on sending, and reads the rest rather than reset the connection', async () => {
    const { socket, received, closed } = connect();
    let reset = false;
    socket.on('error', () => (reset = true));
    // More than the sockets' buffers hold: closing with it unread would reset the connection mid-send.
    socket.write('POST / HTTP/1.1\r\nHost: sbx-3000.localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n' + 'x'.repeat(20_000_000));
    await waitFor('400 Bad Request', () => received().includes('400 Bad Request'), 5000, 10);
    socket.end();
    await closed;
    expect(reset).toBe(false);
    expect(received()).toMatch(/The request's chunked body is malformed.\n$/);
  });

  it('leaves a connection it sends back readable by the server again', async () => {
    tokens = [10];
    let serverSide: net.Socket | undefined;
    front.once('connection', (socket: net.Socket) => (serverSide = socket));
    const { socket, outcome } = connect();
    socket.write('GET /x HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    await sleep(50);
    socket.write('GET / HTTP/1.1\r\nHost: api.localhost\r\n\r\n');
    expect((await outcome).kind).toBe('back');
    let read = '';
    serverSide!.on('data', (chunk: Buffer) => (read += chunk.toString()));
    serverSide!.resume();
    socket.write('sent after the connection came back');
    await waitFor('the data sent after the connection came back', () => read.includes('sent after the connection came back'), 5000, 10);
    socket.destroy();
  });

  it('sends back a first request it cannot carry, marked as the first', async () => {
    const { socket, outcome } = connect();
    socket.write('GET / HTTP/1.1\r\nHost: sbx-3000.localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    const result = await outcome;
    expect(result).toMatchObject({ kind: 'back', first: true });
    expect(result.leftover!.toString()).toContain('Upgrade: websocket');
    socket.destroy();
  });

  it('closes the client connection after the server closes its side', async () => {
    const { socket, received, outcome, closed } = connect();
    socket.write('GET /last HTTP/1.1\r\nHost: sbx-3000.localhost\r\nConnection: close\r\n\r\n');
    expect((await outcome).kind).toBe('closed');
    await closed;
    expect(received()).toContain('answer to GET /last');
  });

  it('hands over only sockets whose handle has the read calls it uses', async () => {
    const { socket } = connect();
    await new Promise((resolve) => socket.once('connect', resolve));
    expect(canHandOver(socket)).toBe(true);
    const handle = (socket as unknown as { _handle: Record<string, unknown> })._handle;
    const readStop = handle.readStop;
    handle.readStop = undefined;
    expect(canHandOver(socket)).toBe(false);
    handle.readStop = readStop;
    socket.destroy();
    expect(canHandOver(socket)).toBe(false);
  });

  it('closes its connections when the relay process dies, and starts a new one for the next connection', async () => {
    tokens = [10];
    const first = connect();
    first.socket.write('GET /one HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    await waitFor('answer to GET /one', () => first.received().includes('answer to GET /one'), 5000, 10);
    (relay as unknown as { child: ChildProcess }).child.kill('SIGKILL');
    expect((await first.outcome).kind).toBe('closed');
    await first.closed;
    const second = connect();
    second.socket.write('GET /two HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    await waitFor('answer to GET /two', () => second.received().includes('answer to GET /two'), 5000, 10);
    second.socket.destroy();
  });
  it('runs as nobody with no capability, no_new_privs and a seccomp filter; its namespace helper keeps CAP_SYS_ADMIN alone', async () => {
    tokens = [10];
    const client = connect();
    client.socket.write('GET /confined HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
    await waitFor('answer to GET /confined', () => client.received().includes('answer to GET /confined'), 5000, 10);
    const relayPid = (relay as unknown as { child: ChildProcess }).child.pid!;
    const nobody = execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim();
    const relayStatus = processStatus(relayPid);
    expect(relayStatus.Uid).toBe(`${nobody}\t${nobody}\t${nobody}\t${nobody}`);
    expect(relayStatus.Groups).toBe('');
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(relayStatus[set], set).toBe('0000000000000000');
    expect(relayStatus.NoNewPrivs).toBe('1');
    expect(relayStatus.Seccomp).toBe('2');
    const [helperPid] = readFileSync(`/proc/${relayPid}/task/${relayPid}/children`, 'utf8').trim().split(' ').map(Number);
    const helperStatus = processStatus(helperPid);
    expect(helperStatus.Uid).toBe(`${nobody}\t${nobody}\t${nobody}\t${nobody}`);
    const sysAdmin = (1n << 21n).toString(16).padStart(16, '0');
    for (const set of ['CapPrm', 'CapEff', 'CapBnd']) expect(helperStatus[set], set).toBe(sysAdmin);
    for (const set of ['CapInh', 'CapAmb']) expect(helperStatus[set], set).toBe('0000000000000000');
    expect(helperStatus.NoNewPrivs).toBe('1');
    expect(helperStatus.Seccomp).toBe('2');
    client.socket.destroy();
  });

  it('connects inside a named network namespace through its helper, and inside no other namespace', async () => {
    const name = `paddock-relaytest-${process.env.PADDOCK_TEST_NETWORK_BASE ?? 0}`;
    execFileSync('ip', ['netns', 'add', name]);
    const server = spawn('ip', [
      'netns',
      'exec',
      name,
      process.execPath,
      '-e',
      "require('http').createServer((q, s) => s.end('inside ' + q.url)).listen(0, '127.0.0.1', function () { console.log(this.address().port) })",
    ]);
    try {
      execFileSync('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
      const port = Number(await new Promise<string>((resolve) => server.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
      tokens = [10];
      relayTo = { port, netns: `/run/netns/${name}` };
      const inside = connect();
      inside.socket.write('GET /netns HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
      await waitFor('inside /netns', () => inside.received().includes('inside /netns'), 5000, 10);
      inside.socket.destroy();
      // The same port on the host's loopback has no server: only the namespace's answered.
      for (const netns of ['/proc/1/ns/net', '/run/netns/../../proc/1/ns/net', '/run/netns/', '/run/netns/no-such-namespace']) {
        relayTo = { port, netns };
        const outside = connect();
        outside.socket.write('GET /netns HTTP/1.1\r\nHost: sbx-3000.localhost\r\n\r\n');
        expect((await outside.outcome).kind, netns).toBe('unreachable');
        outside.socket.destroy();
      }
    } finally {
      server.kill();
      execFileSync('ip', ['netns', 'del', name]);
    }
  });
});

/** The fields of /proc/PID/status. */
function processStatus(pid: number): Record<string, string> {
  const status: Record<string, string> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) status[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  return status;
}
