// Repositories cloned into /workspace at creation, from an HTTPS server in a test "outside world".
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitForSandboxStatus } from '../helpers/sandboxes.js';
import { createWorld, PRIVATE_TOKEN, WORLD, type World } from '../helpers/world.js';

const RUNTIMES = ['runc', 'gvisor'] as const;
const COMBOS = RUNTIMES.flatMap((runtime) => BACKENDS.map((backend) => [runtime, backend] as const));
const PUBLIC = `https://${WORLD.serverA}/repo.git`;
const PRIVATE = `https://${WORLD.serverA}/private/repo.git`;
// The world's certificate is self-signed; the sandbox env is how a user would say so.
const env = { GIT_SSL_NO_VERIFY: 'true' };

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => {
  await world?.close();
});

describe.each(COMBOS)('repo set-up on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime });
    key = (await t.signupOnPlan('enterprise')).key;
    t.secrets.add(PRIVATE_TOKEN);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function createAndWait(body: object) {
    const created = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1, env, ...body } });
    expect(created.status).toBe(201);
    await waitForSandboxStatus(t, key, created.body.id, ['running', 'error']);
    return t.request('GET', `/v1/sandboxes/${created.body.id}`, { token: key });
  }
  const exec = async (id: string, command: string) => (await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command } })).body;

  it('clones the default branch into /workspace', async () => {
    const { body } = await createAndWait({ repo: PUBLIC });
    expect(body).toMatchObject({ status: 'running', repo: PUBLIC });
    expect((await exec(body.id, 'cat README.md; git rev-parse --abbrev-ref HEAD')).output).toBe('version two\nmain\n');
  });

  it('checks out repo_branch, and repo_commit over it', async () => {
    const branch = (await createAndWait({ repo: PUBLIC, repo_branch: 'feature' })).body;
    expect((await exec(branch.id, 'cat FEATURE.md')).output).toBe('feature branch\n');
    const commit = (await createAndWait({ repo: PUBLIC, repo_branch: 'feature', repo_commit: world.commits[0] })).body;
    expect((await exec(commit.id, 'cat README.md; git rev-parse HEAD')).output).toBe(`version one\n${world.commits[0]}\n`);
  });

  it('extracts only repo_subdir into /workspace, as a repository of its own', async () => {
    const { body } = await createAndWait({ repo: PUBLIC, repo_subdir: 'packages/web' });
    expect((await exec(body.id, 'ls -A | grep -v "^.git$"')).output).toBe('index.html\n');
    expect((await exec(body.id, 'git status --porcelain | wc -l')).output.trim()).toBe('0');
  });

  it('uses repo_token for the clone and keeps it out of .git/config, responses and logs', async () => {
    const { body, text } = await createAndWait({ repo: PRIVATE, repo_token: PRIVATE_TOKEN });
    expect(body.status).toBe('running');
    expect(text).not.toContain(PRIVATE_TOKEN);
    expect(body).not.toHaveProperty('repo_token');
    const config = await exec(body.id, 'cat .git/config; git config --list --show-origin');
    expect(config.exit_code).toBe(0);
    expect(config.output).not.toContain(PRIVATE_TOKEN);
    expect(config.output).not.toContain(Buffer.from(`x-access-token:${PRIVATE_TOKEN}`).toString('base64'));
    expect(world.requests().some((r) => r.path.startsWith('/private/') && r.authorization !== null)).toBe(true);
    const list = await t.request('GET', '/v1/sandboxes', { token: key });
    expect(list.text).not.toContain(PRIVATE_TOKEN);
  });

  it('leaves the sandbox in error, without the token, when the clone fails', async () => {
    const wrong = await createAndWait({ repo: PRIVATE, repo_token: 'wrong-token-value' });
    expect(wrong.body.status).toBe('error');
    expect(wrong.body.error).toMatch(/^repo clone exited with \d+/);
    expect(wrong.body.error).not.toContain('wrong-token-value');
    const missing = await createAndWait({ repo: PUBLIC, repo_subdir: 'does/not/exist' });
    expect(missing.body.error).toContain('repo_subdir does/not/exist does not exist');
  });

  it('adds the repository host to an allowlist so the clone works, and nothing else', async () => {
    const { body } = await createAndWait({ repo: PUBLIC, network_mode: 'allowlist', allowlist: ['192.0.2.1'] });
    expect(body.status).toBe('running');
    expect(body.allowlist).toEqual(['192.0.2.1']);
    const probe = await exec(body.id, `python3 -c "import socket; socket.create_connection(('${WORLD.serverB}', 443), 2)" && echo open || echo blocked`);
    expect(probe.output.trim().split('\n').at(-1)).toBe('blocked');
  });

  it('keeps the log free of the token', () => {
    expect(fs.readFileSync(t.logFile, 'utf8')).not.toContain(PRIVATE_TOKEN);
  });
});
