// Every creation field is validated before anything is created: 400 naming the field, nothing stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const base = { template: 'python-311' };
const CASES: [string, object, string][] = [
  ['missing template', {}, 'body.template'],
  ['unknown template', { template: 'ubuntu' }, 'body.template'],
  ['cpus 0', { ...base, cpus: 0 }, 'body.cpus'],
  ['cpus 9', { ...base, cpus: 9 }, 'body.cpus'],
  ['cpus fractional', { ...base, cpus: 1.5 }, 'body.cpus'],
  ['cpus as string', { ...base, cpus: '2' }, 'body.cpus'],
  ['memory 127', { ...base, memory_mb: 127 }, 'body.memory_mb'],
  ['memory 8193', { ...base, memory_mb: 8193 }, 'body.memory_mb'],
  ['disk 0', { ...base, disk_gb: 0 }, 'body.disk_gb'],
  ['disk 51', { ...base, disk_gb: 51 }, 'body.disk_gb'],
  ['bad network mode', { ...base, network_mode: 'open' }, 'body.network_mode'],
  ['allowlist mode without allowlist', { ...base, network_mode: 'allowlist' }, 'body.allowlist'],
  ['allowlist mode with empty allowlist', { ...base, network_mode: 'allowlist', allowlist: [] }, 'body.allowlist'],
  ['allowlist with full mode', { ...base, network_mode: 'full', allowlist: ['example.com'] }, 'body.allowlist'],
  ['wildcard allowlist entry', { ...base, network_mode: 'allowlist', allowlist: ['*.example.com'] }, 'body.allowlist'],
  ['allowlist entry with scheme', { ...base, network_mode: 'allowlist', allowlist: ['https://example.com'] }, 'body.allowlist'],
  ['env with number value', { ...base, env: { PORT: 3000 } }, 'body.env'],
  ['env with bad name', { ...base, env: { 'BAD-NAME': 'x' } }, 'body.env'],
  ['env as array', { ...base, env: ['A=1'] }, 'body.env'],
  ['repo over http', { ...base, repo: 'http://example.com/r.git' }, 'body.repo'],
  ['repo as ssh', { ...base, repo: 'git@example.com:r.git' }, 'body.repo'],
  ['repo with credentials in the URL (they would be stored and shown to read keys)', { ...base, repo: 'https://x-access-token:ghp_secret@example.com/r.git' }, 'body.repo'],
  ['repo with a user name in the URL', { ...base, repo: 'https://deploy@example.com/r.git' }, 'body.repo'],
  ['repo with network none', { ...base, repo: 'https://example.com/r.git', network_mode: 'none' }, 'body.repo'],
  ['repo_branch without repo', { ...base, repo_branch: 'main' }, 'body.repo_branch'],
  ['repo_token without repo', { ...base, repo_token: 'secret' }, 'body.repo_token'],
  ['repo_commit not hex', { ...base, repo: 'https://example.com/r.git', repo_commit: 'HEAD~1' }, 'body.repo_commit'],
  ['repo_subdir escaping', { ...base, repo: 'https://example.com/r.git', repo_subdir: '../etc' }, 'body.repo_subdir'],
  ['repo_branch with shell', { ...base, repo: 'https://example.com/r.git', repo_branch: 'main;rm -rf /' }, 'body.repo_branch'],
  ['negative budget', { ...base, budget: -1 }, 'body.budget'],
  ['zero budget', { ...base, budget: 0 }, 'body.budget'],
  ['timeout too small', { ...base, timeout: 0 }, 'body.timeout'],
  ['timeout fractional', { ...base, timeout: 2.5 }, 'body.timeout'],
  ['resources cpu as string', { ...base, resources: { cpu: '2' } }, 'body.resources'],
  ['resources memory too large', { ...base, resources: { memory: 16 } }, 'body.resources'],
  ['resources unknown key', { ...base, resources: { gpu: 1 } }, 'body.resources'],
  ['secrets not array', { ...base, secrets: 'API_KEY' }, 'body.secrets'],
  ['secret with bad name', { ...base, secrets: ['API-KEY'] }, 'body.secrets'],
  ['unknown secret', { ...base, secrets: ['NOT_SET'] }, 'body.secrets'],
  ['packages not array', { ...base, packages: 'left-pad' }, 'body.packages'],
  ['package with option', { ...base, packages: ['--index-url=http://evil'] }, 'body.packages'],
  ['packages on minimal', { template: 'minimal', packages: ['left-pad'] }, 'body.packages'],
  ['unknown agent', { ...base, agents: ['agent_z'] }, 'body.agents'],
  ['duplicate agents', { ...base, agents: ['agent_a', 'agent_a'] }, 'body.agents'],
  ['unknown field', { ...base, gpu: true }, 'body.gpu'],
  ['null template', { template: null }, 'body.template'],
  ['init_script empty', { ...base, init_script: '' }, 'body.init_script'],
  ['on_complete not a URL', { ...base, on_complete: 'not a url' }, 'body.on_complete'],
  ['on_complete ftp', { ...base, on_complete: 'ftp://example.com/done' }, 'body.on_complete'],
  ['on_complete http without the server flag', { ...base, on_complete: 'http://example.com/done' }, 'body.on_complete'],
  ['on_complete to a private address', { ...base, on_complete: 'https://10.0.0.5/done' }, 'body.on_complete'],
  ['on_complete with credentials', { ...base, on_complete: 'https://user:pw@example.com/done' }, 'body.on_complete'],
  ['on_complete as number', { ...base, on_complete: 42 }, 'body.on_complete'],
  ['on_budget_exceeded without budget', { ...base, on_budget_exceeded: 'https://example.com/over' }, 'body.on_budget_exceeded'],
  ['on_budget_exceeded to loopback', { ...base, budget: 1, on_budget_exceeded: 'https://127.0.0.1/over' }, 'body.on_budget_exceeded'],
  ['budget as string', { ...base, budget: '5' }, 'body.budget'],
];

describe.each(BACKENDS)('sandbox creation validation on %s', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime: 'runc' });
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(CASES)('%s → 400 naming the field', async (_label, body, field) => {
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain(field);
    const rows = await t.storage.db.selectFrom('sandboxes').select('id').execute();
    expect(rows).toEqual([]);
  });
});
