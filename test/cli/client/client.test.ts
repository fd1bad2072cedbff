// The client CLI as people run it: the built `paddock` binary as a child process against a real server
// with runc sandboxes, logged in through `paddock login`, one sandbox shared by the sandbox tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';
import { clientCommands, runCli } from '../../helpers/cli.js';
import { ndjsonLines } from '../../helpers/ndjson.js';
import { askUntil } from '../../helpers/wait-for.js';

let t: TestApp;
let key: string;
let home: string;
let env: Record<string, string | undefined>;
const { cli, json } = clientCommands(() => env);

beforeAll(async () => {
  t = await startApp('sqlite', { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' }, { runtime: 'runc' });
  ({ key } = await t.signup());
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-cli-client-'));
  // Only the config file connects these runs: no key or URL in the environment.
  env = { PADDOCK_CONFIG: path.join(home, 'paddock', 'config.json'), PADDOCK_URL: undefined, PADDOCK_API_KEY: undefined };
});

/** node-pty passes undefined values on as the text "undefined"; child_process leaves them out. */
const definedOnly = (values: Record<string, string | undefined>) => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Record<string, string>;

afterAll(async () => {
  await t?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe('paddock login', () => {
  it('refuses a bad key and stores nothing', async () => {
    const result = await cli('login', '--url', t.url, '--api-key', 'svc_sk_notarealkey');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .+ \(\w+\)\n$/);
    expect(fs.existsSync(env.PADDOCK_CONFIG!)).toBe(false);
  });

  it('verifies the key and stores the URL and key readable by the owner only', async () => {
    const result = await cli('login', '--url', t.url, '--api-key', key);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Logged in to ${t.url}`);
    const file = env.PADDOCK_CONFIG!;
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ url: t.url, api_key: key });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('asks for what the flags do not give (the key on stdin)', async () => {
    const file = path.join(home, 'prompted.json');
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['bin/paddock.js', 'login', '--url', t.url], { env: { ...process.env, PADDOCK_CONFIG: file } });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.end(`${key}\n`);
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('API key: ');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).api_key).toBe(key);
  });

  it('PADDOCK_API_KEY overrides the stored key; usage errors exit 2', async () => {
    const overridden = await runCli(['keys', 'list'], { ...env, PADDOCK_API_KEY: 'svc_sk_notarealkey' });
    expect(overridden.code).toBe(1);
    expect(overridden.stderr).toMatch(/\((unauthorized|invalid_api_key|\w+)\)\n$/);
    const usage = await cli('sandbox', 'get');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('error: sandbox get: missing ID (usage)');
    expect((await cli('sandbox', 'list', '--bogus')).code).toBe(2);
  });
});

describe('paddock sandbox', () => {
  let id: string;

  it('creates a sandbox (plain: its id; --json: the API record)', async () => {
    const created = await json('sandbox', 'create', '--template', 'python-311', '--network', 'none', '--cpus', '1', '--memory', '256', '--disk', '1', '--env', 'GREETING=hi');
    expect(created).toMatchObject({ status: 'running', template: 'python-311', cpus: 1, memory_mb: 256, network_mode: 'none' });
    id = created.id;
    expect(id).toMatch(/^sbx_/);
  });

  it('lists and gets it as a table and as JSON', async () => {
    const table = await cli('sandbox', 'list');
    expect(table.code, table.stderr).toBe(0);
    const [header, ...rows] = table.stdout.trim().split('\n');
    expect(header).toMatch(/^ID\s+STATUS\s+TEMPLATE\s+CPUS\s+MEMORY\s+CREATED$/);
    expect(rows.find((row) => row.startsWith(id))).toMatch(new RegExp(`^${id}\\s+running\\s+python-311\\s+1\\s+256 MB`));
    expect((await json('sandbox', 'list')).map((s: { id: string }) => s.id)).toContain(id);
    const record = await cli('sandbox', 'get', id);
    expect(record.stdout).toMatch(/^status\s+running$/m);
    expect(await json('sandbox', 'get', id)).toMatchObject({ id, status: 'running', env: { GREETING: 'hi' }, runtime: 'runc' });
  });

  it('exec streams stdout and stderr and exits with the command exit code', async () => {
    const ok = await cli('sandbox', 'exec', id, '--', 'echo "$GREETING from $(hostname)"; echo oops >&2');
    expect(ok).toMatchObject({ code: 0, stdout: `hi from ${id}\n`, stderr: 'oops\n' });
    const failing = await cli('sandbox', 'exec', id, '--', 'sh', '-c', 'exit 7');
    expect(failing.code).toBe(7);
    const quoted = await cli('sandbox', 'exec', id, '--env', 'X=1', '--', 'printf', '%s|', 'two words', '$X');
    expect(quoted.stdout).toBe('two words|$X|');
    const raw = await cli('sandbox', 'exec', id, '--json', '--', 'echo hi; exit 3');
    expect(raw.code).toBe(3);
    expect(JSON.parse(raw.stdout)).toMatchObject({ exit_code: 3, stdout: 'hi\n', timed_out: false });
  });

  it('cp copies a file into the sandbox and back, byte for byte', async () => {
    const local = path.join(home, 'in.bin');
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    fs.writeFileSync(local, bytes);
    const up = await cli('sandbox', 'cp', local, `${id}:/workspace/dir/`);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain(`70000 bytes → ${id}:/workspace/dir/in.bin`);
    expect((await cli('sandbox', 'exec', id, '--', 'sha256sum /workspace/dir/in.bin')).stdout.split(' ')[0]).toBe((await import('node:crypto')).createHash('sha256').update(bytes).digest('hex'));
    const back = path.join(home, 'out.bin');
    const down = await json('sandbox', 'cp', `${id}:/workspace/dir/in.bin`, back);
    expect(down).toEqual({ path: back, size: 70_000 });
    expect(fs.readFileSync(back).equals(bytes)).toBe(true);
    const missing = await cli('sandbox', 'cp', `${id}:/workspace/nope`, back);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: .+ \(\w+\)\n$/);
  });

  it('snapshot create, list, restore and rm', async () => {
    const snapshot = await json('snapshot', 'create', id, '--name', 'before');
    expect(snapshot).toMatchObject({ sandbox_id: id, name: 'before', status: 'completed' });
    expect((await cli('snapshot', 'list', id)).stdout).toMatch(new RegExp(`^${snapshot.id}\\s+before\\s+completed`, 'm'));
    await cli('sandbox', 'exec', id, '--', 'rm /workspace/dir/in.bin');
    expect((await cli('snapshot', 'restore', snapshot.id, id)).stdout).toBe(`Restored ${snapshot.id} into ${id}\n`);
    expect((await cli('sandbox', 'exec', id, '--', 'wc -c < /workspace/dir/in.bin')).stdout.trim()).toBe('70000');
    expect((await cli('snapshot', 'rm', snapshot.id)).stdout).toBe(`Deleted ${snapshot.id}\n`);
    expect(await json('snapshot', 'list', id)).toEqual([]);
  });

  it('pauses and resumes it', async () => {
    expect(await json('sandbox', 'pause', id)).toMatchObject({ id, status: 'paused' });
    const refused = await cli('sandbox', 'exec', id, '--', 'true');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(sandbox_not_running\)\n$/);
    const resumed = await cli('sandbox', 'resume', id);
    expect(resumed).toMatchObject({ code: 0, stdout: `${id} running\n` });
    expect((await cli('sandbox', 'exec', id, '--', 'cat /workspace/dir/in.bin | wc -c')).stdout.trim()).toBe('70000');
  });

  it('a shell is a real interactive terminal: keystrokes, resize, and the shell exit code', async () => {
    const pty = await import('node-pty');
    // A shell around the CLI prints the local terminal's settings once the CLI has exited.
    const script = `node bin/paddock.js sandbox shell ${id}; code=$?; echo "cli exited $code"; stty -a; exit $code`;
    const term = pty.spawn('/bin/sh', ['-c', script], {
      cols: 80,
      rows: 24,
      cwd: process.cwd(),
      env: definedOnly({ ...process.env, ...env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` }),
    });
    let screen = '';
    term.onData((data) => (screen += data));
    const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    const waitFor = async (pattern: RegExp) => {
      for (let i = 0; i < 200 && !pattern.test(screen); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(screen).toMatch(pattern);
    };
    await waitFor(/[$#] $/m);
    term.write('echo $((6*7))\r');
    await waitFor(/^42\r?$/m);
    term.resize(123, 45);
    // The resize travels CLI -> server -> runtime and applies a moment later: ask until the new size shows.
    await askUntil(
      'the new size',
      () => term.write('stty size\r'),
      () => /^45 123\r?$/m.test(screen),
    );
    term.write('exit 3\r');
    expect(await exited).toBe(3);
    // Back in cooked mode with echo: raw mode would show -icanon -echo.
    const settings = screen.slice(screen.indexOf('cli exited 3'));
    expect(settings).toMatch(/(^|\s)icanon(\s|;|$)/m);
    expect(settings).toMatch(/(^|\s)echo(\s|;|$)/m);
  });

  it('ps, logs (-f follows to the end) and kill a background process', async () => {
    const start = async (command: string, tag: string) => {
      const reply = await t.request('POST', `/v1/sandboxes/${id}/processes`, { token: key, body: { command, tag } });
      expect(reply.status, reply.text).toBe(201);
      return reply.body.id as string;
    };
    const counter = await start('for i in 1 2 3; do echo tick $i; echo warn $i >&2; sleep 0.3; done', 'counter');
    const sleeper = await start('echo started; sleep 600', 'sleeper');
    const table = await cli('sandbox', 'ps', id);
    expect(table.stdout).toMatch(/^ID\s+PID\s+STATUS\s+TAG\s+STARTED\s+COMMAND$/m);
    expect(table.stdout).toMatch(new RegExp(`^${sleeper}\\s+\\d+\\s+running\\s+sleeper\\s`, 'm'));
    const followed = await cli('sandbox', 'logs', id, counter, '-f');
    expect(followed).toMatchObject({ code: 0, stdout: 'tick 1\ntick 2\ntick 3\n', stderr: 'warn 1\nwarn 2\nwarn 3\n' });
    const output = await json('sandbox', 'logs', id, counter);
    expect(output).toMatchObject({ status: 'exited', exit_code: 0, truncated: false });
    expect(output.chunks.map((chunk: { data: string }) => chunk.data).join('')).toContain('tick 3');
    expect((await json('sandbox', 'ps', id, '--status', 'running')).map((p: { id: string }) => p.id)).toEqual([sleeper]);
    expect(await json('sandbox', 'kill', id, sleeper, '--signal', 'KILL')).toMatchObject({ id: sleeper });
    const ended = await cli('sandbox', 'logs', id, sleeper, '-f', '--json');
    expect(ndjsonLines(ended.stdout)).toEqual([
      { type: 'stdout', data: 'started\n' },
      { type: 'exit', exit_code: 137, signal: 'SIGKILL' },
    ]);
    expect((await cli('sandbox', 'kill', id, sleeper)).stderr).toMatch(/\(process_not_running\)\n$/);
  });

  it('rm destroys it', async () => {
    expect((await cli('sandbox', 'rm', id)).stdout).toBe(`Destroyed ${id}\n`);
    expect(await json('sandbox', 'get', id)).toMatchObject({ status: 'destroyed' });
    const gone = await cli('sandbox', 'exec', id, '--', 'true');
    expect(gone.code).toBe(1);
  });
});

describe('paddock pipeline', () => {
  it('applies a YAML file (create, then a new version by name), runs it, and lists its runs', async () => {
    const name = `cli-${Date.now()}`;
    const file = path.join(home, 'pipeline.yaml');
    const write = (word: string) => fs.writeFileSync(file, `name: ${name}\nstages:\n  - name: hello\n    type: command\n    template: python-311\n    command: echo ${word} from $WHO\n`);
    write('first');
    expect((await cli('pipeline', 'apply', '-f', file)).stdout).toMatch(new RegExp(`^Created pipeline ${name} \\(\\S+\\), version 1\n$`));
    write('second');
    const updated = await json('pipeline', 'apply', '-f', file);
    expect(updated).toMatchObject({ name, version: 2 });
    const run = await json('pipeline', 'run', name, '--env', 'WHO=cli', '--wait');
    expect(run).toMatchObject({ status: 'succeeded', version: 2, trigger: 'cli' });
    const runs = await cli('pipeline', 'runs', name);
    expect(runs.stdout).toMatch(new RegExp(`^${run.id}\\s+succeeded\\s+2\\s+cli`, 'm'));
    const logs = await cli('pipeline', 'logs', name, run.id);
    expect(logs.stdout).toContain('second from cli');
    expect((await json('pipeline', 'list')).find((p: { name: string }) => p.name === name)).toMatchObject({ id: updated.id, version: 2 });
  });

  it('names the problem in a bad file', async () => {
    const file = path.join(home, 'bad.yaml');
    fs.writeFileSync(file, 'stages: [\n');
    const result = await cli('pipeline', 'apply', '-f', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .*bad\.yaml is not valid YAML or JSON.* \(invalid_definition\)\n$/);
  });
});

describe('paddock keys', () => {
  it('creates a key shown once, lists it, and revokes it', async () => {
    const created = await json('keys', 'create', 'ci', '--scope', 'read');
    expect(created).toMatchObject({ name: 'ci', scope: 'read' });
    expect(created.key).toMatch(/^svc_sk_/);
    const table = await cli('keys', 'list');
    expect(table.stdout).toMatch(new RegExp(`^${created.id}\\s+ci\\s+read`, 'm'));
    expect((await runCli(['sandbox', 'list'], { ...env, PADDOCK_API_KEY: created.key })).code).toBe(0);
    expect((await cli('keys', 'revoke', created.id)).stdout).toBe(`Revoked ${created.id}\n`);
    expect((await json('keys', 'list')).map((k: { id: string }) => k.id)).not.toContain(created.id);
    expect((await runCli(['sandbox', 'list'], { ...env, PADDOCK_API_KEY: created.key })).code).toBe(1);
  });
});
