// The scope table, route by route: every operation in the server's own /openapi.json is called with a
// `read`, a `sandbox` and a `full` key and must answer as the documented table says (README, API
// description): denied → 403 naming the scope, allowed → anything but 401/403. Then every operation
// on a confidential sandbox, its snapshot and its session is called with the narrower keys. The
// expectations below are written from the documentation, independently of src/core/access.ts, so a
// route that declares the wrong area or forgets `reaches` fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type Reply, type TestApp } from '../helpers/app.js';

type Scope = 'full' | 'sandbox' | 'read';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  method: string;
  path: string;
  doc: { security?: unknown[]; 'x-paddock-scopes'?: string[]; 'x-paddock-confidential'?: boolean };
}

const OPEN = [
  /^\/signup$/,
  /^\/login$/,
  /^\/v1\/dashboard\/session$/,
  /^\/v1\/pricing$/,
  /^\/healthz$/,
  /^\/readyz$/,
  /^\/openapi\.json$/,
  /^\/v1\/snapshot-downloads\/\{id\}$/,
  /^\/docs/,
  /^\/\.well-known\/agent/,
  /^\/a2a\/\{agentId\}\/\.well-known\/agent-card\.json$/,
];

/** README "Scopes": `sandbox` reaches sandbox, port, file, exec, terminal and snapshot endpoints; `read` only GET on sandboxes (not their snapshots) and sessions; everything else (webhook endpoints among them: their secret is a credential) is `full` only. */
function expectedScopes(method: string, path: string): Scope[] | 'open' {
  if (OPEN.some((pattern) => pattern.test(path))) return 'open';
  // A sandbox's sessions and snapshots are listed under its path but belong to those areas.
  const sessions = path.startsWith('/v1/sessions') || /^\/v1\/sandboxes\/\{id\}\/sessions$/.test(path);
  const snapshots = path.startsWith('/v1/snapshots') || /^\/v1\/sandboxes\/\{id\}\/snapshots$/.test(path);
  const sandboxes = !sessions && !snapshots && (path === '/v1/templates' || path.startsWith('/v1/sandboxes'));
  // The terminal is a GET that runs commands: a write.
  const reads = method === 'GET' && !/\/terminal$/.test(path);
  const scopes: Scope[] = ['full'];
  if (sandboxes || snapshots) scopes.push('sandbox');
  if ((sandboxes || sessions) && reads) scopes.push('read');
  return scopes;
}

/** Operations that reach inside a sandbox, a snapshot's content or a session's events: `full` only when confidential. */
const CONFIDENTIAL = new Set([
  'POST /v1/sandboxes/{id}/exec',
  'POST /v1/sandboxes/{id}/exec/stream',
  'GET /v1/sandboxes/{id}/files',
  'GET /v1/sandboxes/{id}/files/content',
  'PUT /v1/sandboxes/{id}/files/content',
  'GET /v1/sandboxes/{id}/git/diff',
  'POST /v1/sandboxes/{id}/processes',
  'GET /v1/sandboxes/{id}/processes',
  'GET /v1/sandboxes/{id}/processes/{pid}',
  'GET /v1/sandboxes/{id}/processes/{pid}/output',
  'POST /v1/sandboxes/{id}/processes/{pid}/stdin',
  'POST /v1/sandboxes/{id}/processes/{pid}/signal',
  'POST /v1/sandboxes/{id}/terminal/tickets',
  'GET /v1/sandboxes/{id}/terminal',
  'POST /v1/sandboxes/{id}/ports/{port}/protect',
  'DELETE /v1/sandboxes/{id}/ports/{port}/protect',
  'GET /v1/snapshots/{id}/download',
  'POST /v1/snapshots/{id}/restore',
  'GET /v1/sessions/{id}/replay',
  'GET /v1/sessions/{id}/replay/summary',
]);

// Agent-delegation routes answer `{error: {code, message, details}}`, the others `{error, code}`; the A2A
// protocol endpoint answers in its binding's shape (JSON-RPC error or google.rpc.Status), the code as the
// reason of an ErrorInfo in `data`/`details`.
const isScopeDenial = (reply: Reply) => {
  const a2aDetails = reply.body?.error?.data ?? (typeof reply.body?.error?.code === 'number' ? reply.body.error.details : undefined);
  if (Array.isArray(a2aDetails)) return reply.status === 403 && /-scope key/.test(String(reply.body.error.message)) && a2aDetails.some((detail: any) => detail.reason === 'scope_denied');
  const coded = typeof reply.body?.error === 'object' && reply.body.error !== null;
  const message = coded ? reply.body.error.message : reply.body?.error;
  const code = coded ? reply.body.error.code : (reply.body?.code ?? 'scope_denied');
  return reply.status === 403 && /-scope key/.test(String(message)) && code === 'scope_denied';
};

describe('the scope table over every route in /openapi.json (sqlite, runc)', () => {
  let t: TestApp;
  const keys = {} as Record<Scope, string>;
  let operations: Operation[] = [];

  const fill = (path: string, ids: Record<string, string> = {}) =>
    path.replace(/\{(\w+)\}/g, (_whole, name: string) => ids[name] ?? (name === 'port' ? '8080' : name === 'version' ? '1' : `nope_${name}`));
  const call = (op: Operation, token: string, ids?: Record<string, string>, body: object = {}) =>
    t.request(op.method, fill(op.path, ids), { token, ...(['POST', 'PUT', 'PATCH'].includes(op.method) ? { body } : {}) });

  beforeAll(async () => {
    t = await startApp('sqlite', {}, { runtime: 'runc' });
    keys.full = (await t.signupOnPlan('team')).key;
    for (const scope of ['sandbox', 'read'] as const) {
      const minted = await t.request('POST', '/v1/account/keys', { token: keys.full, body: { name: scope, scope } });
      expect(minted.status).toBe(201);
      keys[scope] = minted.body.key;
    }
    const doc = (await t.request('GET', '/openapi.json')).body;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation['doc']>>)) {
      for (const method of METHODS) if (item[method]) operations.push({ method: method.toUpperCase(), path, doc: item[method] });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('walks a document that has the sandbox routes', () => {
    expect(operations.length).toBeGreaterThan(80);
    for (const op of [
      'POST /v1/sandboxes',
      'POST /v1/sandboxes/{id}/exec',
      'GET /v1/snapshots/{id}/download',
      'PUT /v1/secrets/{name}',
      'GET /v1/sessions/{id}/replay',
      'POST /v1/webhooks',
      'GET /v1/webhooks/{id}/deliveries',
    ]) {
      expect(operations.map((o) => `${o.method} ${o.path}`)).toContain(op);
    }
  });

  it('documents, per operation, exactly the scopes the table gives it', () => {
    const wrong: string[] = [];
    for (const op of operations) {
      const expected = expectedScopes(op.method, op.path);
      const name = `${op.method} ${op.path}`;
      if (expected === 'open') {
        if (JSON.stringify(op.doc.security) !== '[]') wrong.push(`${name}: should be open (security: [])`);
        continue;
      }
      if (JSON.stringify(op.doc['x-paddock-scopes']) !== JSON.stringify(expected))
        wrong.push(`${name}: documents ${JSON.stringify(op.doc['x-paddock-scopes'])}, table says ${JSON.stringify(expected)}`);
      if (Boolean(op.doc['x-paddock-confidential']) !== CONFIDENTIAL.has(name)) wrong.push(`${name}: x-paddock-confidential should be ${CONFIDENTIAL.has(name)}`);
    }
    for (const name of CONFIDENTIAL) if (!operations.some((op) => `${op.method} ${op.path}` === name)) wrong.push(`${name}: missing from the document`);
    expect(wrong).toEqual([]);
  });

  it('answers every operation with read, sandbox and full keys as the table says', async () => {
    const wrong: string[] = [];
    for (const op of operations) {
      const expected = expectedScopes(op.method, op.path);
      for (const scope of ['read', 'sandbox', 'full'] as const) {
        const reply = await call(op, keys[scope]);
        const name = `${scope} ${op.method} ${op.path} → ${reply.status} ${reply.text.slice(0, 120)}`;
        if (reply.status >= 500) wrong.push(`${name}: server error`);
        else if (expected === 'open') {
          if (reply.status === 401 || isScopeDenial(reply)) wrong.push(`${name}: open route refused a key`);
        } else if (expected.includes(scope)) {
          if (reply.status === 401 || reply.status === 403) wrong.push(`${name}: should be allowed`);
        } else if (!isScopeDenial(reply)) wrong.push(`${name}: should be a 403 scope_denied`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps narrower keys out of a confidential sandbox, its snapshot and its session, on every operation that reaches inside', async () => {
    expect((await t.request('PUT', '/v1/secrets/TABLE_TOKEN', { token: keys.full, body: { value: 'table-secret-value' } })).status).toBe(201);
    t.secrets.add('table-secret-value');
    const sandbox = await t.request('POST', '/v1/sandboxes', { token: keys.full, body: { template: 'minimal', network_mode: 'none', disk_gb: 1, secrets: ['TABLE_TOKEN'] } });
    expect(sandbox.status, sandbox.text).toBe(201);
    expect((await t.request('POST', `/v1/sandboxes/${sandbox.body.id}/exec`, { token: keys.full, body: { command: 'true' } })).body.exit_code).toBe(0);
    const snapshot = await t.request('POST', `/v1/sandboxes/${sandbox.body.id}/snapshots`, { token: keys.full, body: { name: 'table' } });
    expect(snapshot.status, snapshot.text).toBe(201);
    const session = (await t.request('GET', `/v1/sandboxes/${sandbox.body.id}/sessions`, { token: keys.full })).body[0];
    const idOf: Record<string, string> = { '/v1/sandboxes/{id}': sandbox.body.id, '/v1/snapshots/{id}': snapshot.body.id, '/v1/sessions/{id}': session.id };

    const wrong: string[] = [];
    // Destroying and deleting come last, once every other operation was tried on the real resources.
    const ordered = [...operations.filter((op) => op.method !== 'DELETE' || op.path.includes('protect')), ...operations.filter((op) => op.method === 'DELETE' && !op.path.includes('protect'))];
    for (const op of ordered) {
      const prefix = Object.keys(idOf).find((p) => op.path === p || op.path.startsWith(`${p}/`));
      const expected = expectedScopes(op.method, op.path);
      if (!prefix || expected === 'open') continue;
      const confidential = CONFIDENTIAL.has(`${op.method} ${op.path}`);
      for (const scope of ['read', 'sandbox'] as const) {
        if (!expected.includes(scope)) continue;
        const reply = await call(op, keys[scope], { id: idOf[prefix] }, op.path.endsWith('/restore') ? { sandbox_id: sandbox.body.id } : {});
        const name = `${scope} ${op.method} ${op.path} (confidential) → ${reply.status} ${reply.text.slice(0, 120)}`;
        if (reply.text.includes('table-secret-value')) wrong.push(`${name}: shows the secret value`);
        if (confidential && !isScopeDenial(reply)) wrong.push(`${name}: should be a 403 scope_denied`);
        if (!confidential && (reply.status === 401 || reply.status === 403)) wrong.push(`${name}: should be allowed`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
