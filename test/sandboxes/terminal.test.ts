// The terminal end to end: a real WebSocket client (ws) against real runtimes (runc and gVisor) and real
// storage (SQLite and PostgreSQL).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { askUntil, waitFor } from '../helpers/wait-for.js';

const TEMPLATE = 'python-311';
const RUNTIMES = ['runc', 'gvisor'] as const;
const COMBOS = RUNTIMES.flatMap((runtime) => BACKENDS.map((backend) => [runtime, backend] as const));
const GRACE_SECONDS = 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A terminal connection that collects output and control messages as they arrive. */
class TerminalClient {
  output = '';
  controls: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary) => {
      if (isBinary) this.output += data.toString('utf8');
      else this.controls.push(JSON.parse(data.toString('utf8')));
    });
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** Resolves once upgraded, or rejects with the HTTP status the server answered instead. */
  static connect(url: string, token?: string): Promise<TerminalClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      const client = new TerminalClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (request, response) => {
        request.destroy();
        reject(Object.assign(new Error(`HTTP ${response.statusCode}`), { status: response.statusCode }));
      });
      socket.once('error', reject);
    });
  }

  get session(): any {
    return this.controls.find((message) => message.type === 'session');
  }

  type(text: string): void {
    this.socket.send(text);
  }

  async waitForOutput(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    await waitFor(
      `${pattern} on the terminal`,
      () => {
        if (!pattern.test(this.output)) throw new Error(`the output so far is ${JSON.stringify(this.output.slice(-500))}`);
        return true;
      },
      timeoutMs,
      25,
    );
    return this.output;
  }

  /** Waits for the shell's prompt, as a person would before typing. */
  async prompt(): Promise<void> {
    await this.waitForOutput(/[#$] $/);
  }

  waitForSession(): Promise<any> {
    return waitFor('the session message', () => this.session, 15_000, 10);
  }
}

async function statusOf(url: string, token?: string): Promise<number> {
  try {
    const client = await TerminalClient.connect(url, token);
    client.socket.close();
    return 101;
  } catch (error) {
    return (error as { status?: number }).status ?? 0;
  }
}

describe.each(COMBOS)('terminal on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;
  let sandbox: { id: string };
  let other: { id: string };

  const wsUrl = (id: string, query = '') => `${t.url.replace(/^http/, 'ws')}/v1/sandboxes/${id}/terminal${query}`;
  const sessions = async (id: string) => (await t.request('GET', `/v1/sandboxes/${id}/terminal/sessions`, { token: key })).body;
  const create = async (body: object) => {
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1, ...body } });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_TERMINAL_GRACE_SECONDS: String(GRACE_SECONDS) }, { runtime, networkProfile: 7 });
    key = (await t.signupOnPlan('team')).key;
    [sandbox, other] = await Promise.all([create({ env: { GREETING: 'hello-terminal' } }), create({})]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runs a login shell: typed input is evaluated and its output comes back as binary frames', async () => {
    const client = await TerminalClient.connect(wsUrl(sandbox.id), key);
    expect(await client.waitForSession()).toMatchObject({ type: 'session', reattached: false, cols: 80, rows: 24 });
    expect(client.session.id).toMatch(/^term_/);
    client.type('echo $((6*7))\r');
    // \r+: under load the first lines can come through a terminal layer not yet raw, as \r\r\n (an open issue).
    await client.waitForOutput(/[\r\n]42\r+\n/);
    client.socket.close();
  });

  it('starts in /workspace with the sandbox env', async () => {
    const client = await TerminalClient.connect(wsUrl(sandbox.id), key);
    client.type('echo "PWD=$(pwd) GREETING=$GREETING TERM=$TERM"\r');
    await client.waitForOutput(/PWD=\/workspace GREETING=hello-terminal TERM=xterm-256color\r+\n/);
    client.socket.close();
  });

  it('follows a resize: stty size reports the new rows and columns', async () => {
    const client = await TerminalClient.connect(wsUrl(sandbox.id, '?cols=90&rows=20'), key);
    await client.prompt();
    client.type('stty size\r');
    await client.waitForOutput(/(^|[^0-9])20 90\r+\n/);
    client.socket.send(JSON.stringify({ type: 'resize', cols: 132, rows: 43 }));
    // runc and runsc learn of the resize from SIGWINCH and apply it a moment later, so a command typed at
    // once may still see 20 90 on a busy machine: ask again until the new size shows.
    // SIGWINCH makes the shell redraw its line, so the answer may follow escape codes rather than a newline.
    await askUntil(
      'stty size to report the new size',
      () => client.type('stty size\r'),
      () => client.waitForOutput(/(^|[^0-9])43 132\r+\n/, 0),
    );
    client.socket.send(JSON.stringify({ type: 'resize', cols: 0, rows: 43 }));
    await waitFor('an error message', () => client.controls.some((message) => message.type === 'error'));
    client.socket.close();
  });

  it('sends the exit status and closes with 1000 when the shell exits', async () => {
    const client = await TerminalClient.connect(wsUrl(sandbox.id), key);
    client.type('exit 3\r');
    expect(await client.closed).toEqual({ code: 1000, reason: 'shell exited' });
    expect(client.controls).toContainEqual({ type: 'exit', exit_code: 3 });
  });

  it('keeps a dropped session for re-attach, replays its output, and lists it as attached or not', async () => {
    const first = await TerminalClient.connect(wsUrl(sandbox.id), key);
    const { id } = await first.waitForSession();
    first.type('echo marker-$((40+2))\r');
    await first.waitForOutput(/marker-42\r\n/);
    expect((await sessions(sandbox.id)).find((s: any) => s.id === id)).toMatchObject({ id, attached: true, cols: 80, rows: 24 });

    first.socket.terminate();
    await waitFor('the session to be detached', async () => (await sessions(sandbox.id)).find((s: any) => s.id === id)?.attached === false);
    const listed = (await sessions(sandbox.id)).find((s: any) => s.id === id);
    expect(Date.parse(listed.created_at)).toBeLessThanOrEqual(Date.parse(listed.last_activity_at));

    const again = await TerminalClient.connect(wsUrl(sandbox.id, `?session=${id}`), key);
    expect(await again.waitForSession()).toMatchObject({ id, reattached: true });
    await again.waitForOutput(/marker-42\r\n/);
    again.type('echo still-$((1+1))\r');
    await again.waitForOutput(/still-2\r\n/);
    again.socket.close();
  });

  it('closes a connection that does not read its output with 4008, keeping the session', async () => {
    const client = await TerminalClient.connect(wsUrl(sandbox.id), key);
    const { id } = await client.waitForSession();
    client.type('yes flood-flood-flood-flood-flood-flood-flood-flood\r');
    const tcp = (client.socket as any)._socket;
    tcp.pause();
    await sleep(3000);
    tcp.resume();
    expect(await client.closed).toMatchObject({ code: 4008 });
    const again = await TerminalClient.connect(wsUrl(sandbox.id, `?session=${id}`), key);
    again.type('\x03');
    again.type('exit\r');
    expect((await again.closed).code).toBe(1000);
  });

  it('kills a dropped session after the grace period', async () => {
    const client = await TerminalClient.connect(wsUrl(sandbox.id), key);
    const { id } = await client.waitForSession();
    client.socket.terminate();
    await sleep(GRACE_SECONDS * 1000 + 700);
    expect((await sessions(sandbox.id)).map((s: any) => s.id)).not.toContain(id);
    expect(await statusOf(wsUrl(sandbox.id, `?session=${id}`), key)).toBe(404);
  });

  it('opens from a browser with a single-use ticket bound to the sandbox', async () => {
    const minted = await t.request('POST', `/v1/sandboxes/${sandbox.id}/terminal/tickets`, { token: key });
    expect(minted.status).toBe(201);
    expect(Date.parse(minted.body.expires_at) - Date.now()).toBeGreaterThan(50_000);
    expect(minted.body.url).toBe(`${wsUrl(sandbox.id)}?ticket=${minted.body.ticket}`);
    const client = await TerminalClient.connect(minted.body.url);
    client.type('echo ticket-$((2*3))\r');
    await client.waitForOutput(/ticket-6\r\n/);
    client.socket.close();
    expect(await statusOf(minted.body.url)).toBe(401);

    const forOther = await t.request('POST', `/v1/sandboxes/${other.id}/terminal/tickets`, { token: key });
    expect(await statusOf(wsUrl(sandbox.id, `?ticket=${forOther.body.ticket}`))).toBe(401);

    const expiring = await t.request('POST', `/v1/sandboxes/${sandbox.id}/terminal/tickets`, { token: key });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    try {
      expect(await statusOf(expiring.body.url)).toBe(401);
    } finally {
      vi.useRealTimers();
    }
    expect(await statusOf(wsUrl(sandbox.id, '?ticket=tkt_made-up'))).toBe(401);

    const behindTls = await t.request('POST', `/v1/sandboxes/${sandbox.id}/terminal/tickets`, { token: key, headers: { 'x-forwarded-proto': 'https' } });
    expect(behindTls.body.url).toMatch(/^wss:\/\//);
  });

  it('documents the protocol in the OpenAPI description', async () => {
    const spec = (await t.request('GET', '/openapi.json')).body;
    const terminal = spec.paths['/v1/sandboxes/{id}/terminal'].get;
    expect(terminal.description).toMatch(/Framing/);
    expect(terminal.description).toMatch(/ticket/);
    expect(spec.paths['/v1/sandboxes/{id}/terminal/tickets'].post).toBeDefined();
    expect(spec.paths['/v1/sandboxes/{id}/terminal/sessions'].get).toBeDefined();
  });

  it('refuses without credentials (401), with a read-scope key (403) and for another account (404)', async () => {
    expect(await statusOf(wsUrl(sandbox.id))).toBe(401);
    const noAuth = await t.request('POST', `/v1/sandboxes/${sandbox.id}/terminal/tickets`);
    expect(noAuth.status).toBe(401);

    const readKey = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'r', scope: 'read' } })).body.key;
    expect(await statusOf(wsUrl(sandbox.id), readKey)).toBe(403);
    expect((await t.request('POST', `/v1/sandboxes/${sandbox.id}/terminal/tickets`, { token: readKey })).status).toBe(403);
    expect((await t.request('GET', `/v1/sandboxes/${sandbox.id}/terminal/sessions`, { token: readKey })).status).toBe(200);
    const sandboxKey = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 's', scope: 'sandbox' } })).body.key;
    expect(await statusOf(wsUrl(sandbox.id), sandboxKey)).toBe(101);

    const stranger = (await t.signup()).key;
    expect(await statusOf(wsUrl(sandbox.id), stranger)).toBe(404);
    expect((await t.request('GET', `/v1/sandboxes/${sandbox.id}/terminal/sessions`, { token: stranger })).status).toBe(404);
    expect((await t.request('POST', `/v1/sandboxes/${sandbox.id}/terminal/tickets`, { token: stranger })).status).toBe(404);
    expect(await statusOf(wsUrl(sandbox.id, '?session=term_unknown'), key)).toBe(404);

    const plain = await t.request('GET', `/v1/sandboxes/${sandbox.id}/terminal`, { token: key });
    expect(plain.status).toBe(426);
    expect(plain.body.error).toMatch(/WebSocket/);
    // Ownership comes first, as on every other route of another account's sandbox.
    const plainForeign = await t.request('GET', `/v1/sandboxes/${sandbox.id}/terminal`, { token: stranger });
    expect({ status: plainForeign.status, code: plainForeign.body.code }).toEqual({ status: 404, code: 'not_found' });
  });

  it('counts terminal traffic as sandbox activity', async () => {
    const before = (await t.request('GET', `/v1/sandboxes/${other.id}`, { token: key })).body.last_activity_at;
    const client = await TerminalClient.connect(wsUrl(other.id), key);
    client.type('echo active\r');
    await client.waitForOutput(/active\r\n/);
    client.socket.close();
    await waitFor('last_activity_at to move on', async () => {
      const after = (await t.request('GET', `/v1/sandboxes/${other.id}`, { token: key })).body.last_activity_at;
      return Date.parse(after) > Date.parse(before);
    });
  });

  it('closes its terminals with 4000 when the sandbox is destroyed, and then answers 409', async () => {
    const client = await TerminalClient.connect(wsUrl(other.id), key);
    await client.waitForSession();
    expect((await t.request('DELETE', `/v1/sandboxes/${other.id}`, { token: key })).status).toBe(204);
    expect(await client.closed).toEqual({ code: 4000, reason: 'sandbox destroyed' });
    expect(await statusOf(wsUrl(other.id), key)).toBe(409);
    expect((await t.request('POST', `/v1/sandboxes/${other.id}/terminal/tickets`, { token: key })).status).toBe(409);
  });
});
