// An "outside world" for sandbox tests: a network namespace at 198.51.100.0/24 (TEST-NET-2) routed from
// the host, with HTTPS servers on two addresses serving git repositories over the dumb HTTP protocol.
// Sandboxes in `full` mode reach it through Paddock's NAT exactly as they would reach the Internet.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ndjsonLines } from './ndjson.js';

export const WORLD = {
  netns: 'pdkworld',
  hostVeth: 'pdkwld0',
  hostAddress: '198.51.100.1',
  serverA: '198.51.100.10',
  serverB: '198.51.100.20',
};

export const PRIVATE_TOKEN = 'ghp_testtoken0123456789abcdefghijklmnopq';

export interface World {
  dir: string;
  /** Requests the servers saw, oldest first. */
  requests(): { path: string; authorization: string | null; host: string }[];
  /** Commit ids of the test repository: [first, second]. */
  commits: string[];
  close(): Promise<void>;
}

function sh(command: string, args: string[], cwd?: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function quiet(command: string, args: string[]): void {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
  } catch {}
}

function teardownNetwork(): void {
  quiet('ip', ['link', 'del', WORLD.hostVeth]);
  quiet('ip', ['netns', 'del', WORLD.netns]);
}

/** A repository with two commits on `main`, a `feature` branch and a `packages/web` subdirectory. */
function makeRepository(dir: string): string[] {
  const work = path.join(dir, 'work');
  fs.mkdirSync(path.join(work, 'packages', 'web'), { recursive: true });
  const git = (...args: string[]) => sh('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], work);
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(work, 'README.md'), 'version one\n');
  fs.writeFileSync(path.join(work, 'packages', 'web', 'index.html'), '<h1>web</h1>\n');
  git('add', '-A');
  git('commit', '-qm', 'first');
  const first = git('rev-parse', 'HEAD');
  fs.writeFileSync(path.join(work, 'README.md'), 'version two\n');
  git('commit', '-qam', 'second');
  const second = git('rev-parse', 'HEAD');
  git('checkout', '-qb', 'feature');
  fs.writeFileSync(path.join(work, 'FEATURE.md'), 'feature branch\n');
  git('add', '-A');
  git('commit', '-qm', 'feature');
  git('checkout', '-q', 'main');
  for (const name of ['public', 'private']) {
    const bare = path.join(dir, 'root', ...(name === 'private' ? ['private'] : []), 'repo.git');
    fs.mkdirSync(path.dirname(bare), { recursive: true });
    sh('git', ['clone', '-q', '--bare', work, bare]);
    sh('git', ['update-server-info'], bare);
  }
  return [first, second];
}

/** A one-package npm registry under /npm/ and a one-package PyPI simple index under /simple/. */
function makePackageIndexes(dir: string): void {
  const root = path.join(dir, 'root');
  const source = path.join(dir, 'npm-source');
  fs.mkdirSync(path.join(source, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(source, 'package.json'), JSON.stringify({ name: 'paddock-hello', version: '1.0.0', bin: { 'paddock-hello': 'bin/hello.js' } }));
  fs.writeFileSync(path.join(source, 'bin', 'hello.js'), "#!/usr/bin/env node\nconsole.log('hello from npm');\n", { mode: 0o755 });
  // The registry's layout (`<registry>/<name>/-/<file>.tgz`): npm 12 fetches a tarball outside it only with allow-remote.
  const packageDir = path.join(root, 'npm', 'paddock-hello');
  fs.mkdirSync(path.join(packageDir, '-'), { recursive: true });
  const tarballName = sh('npm', ['pack', '--silent', '--pack-destination', path.join(packageDir, '-')], source)
    .split('\n')
    .pop()!;
  const tarball = fs.readFileSync(path.join(packageDir, '-', tarballName));
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  fs.writeFileSync(
    path.join(packageDir, 'index.json'),
    JSON.stringify({
      name: 'paddock-hello',
      'dist-tags': { latest: '1.0.0' },
      versions: {
        '1.0.0': {
          name: 'paddock-hello',
          version: '1.0.0',
          bin: { 'paddock-hello': 'bin/hello.js' },
          dist: { tarball: `https://${WORLD.serverA}/npm/paddock-hello/-/${tarballName}`, integrity, shasum: createHash('sha1').update(tarball).digest('hex') },
        },
      },
    }),
  );

  const wheelName = 'paddock_hello-1.0.0-py3-none-any.whl';
  const wheel = path.join(root, 'wheels', wheelName);
  fs.mkdirSync(path.dirname(wheel), { recursive: true });
  execFileSync('python3', [
    '-c',
    `
import base64, hashlib, sys, zipfile
files = {
  'paddock_hello/__init__.py': 'GREETING = "hello from pip"\\n',
  'paddock_hello-1.0.0.dist-info/METADATA': 'Metadata-Version: 2.1\\nName: paddock-hello\\nVersion: 1.0.0\\n',
  'paddock_hello-1.0.0.dist-info/WHEEL': 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n',
}
record = ''.join(f'{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(body.encode()).digest()).rstrip(b"=").decode()},{len(body)}\\n' for name, body in files.items())
files['paddock_hello-1.0.0.dist-info/RECORD'] = record + 'paddock_hello-1.0.0.dist-info/RECORD,,\\n'
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for name, body in files.items():
        z.writestr(name, body)
`,
    wheel,
  ]);
  const digest = createHash('sha256').update(fs.readFileSync(wheel)).digest('hex');
  fs.mkdirSync(path.join(root, 'simple', 'paddock-hello'), { recursive: true });
  fs.writeFileSync(path.join(root, 'simple', 'paddock-hello', 'index.html'), `<html><body><a href="/wheels/${wheelName}#sha256=${digest}">${wheelName}</a></body></html>`);
}

/** Sandbox env that points npm and pip at the world's package indexes. */
export const PACKAGE_INDEX_ENV = {
  npm_config_registry: `https://${WORLD.serverA}/npm/`,
  npm_config_strict_ssl: 'false',
  PIP_INDEX_URL: `https://${WORLD.serverA}/simple/`,
  PIP_TRUSTED_HOST: WORLD.serverA,
};

export async function createWorld(): Promise<World> {
  teardownNetwork();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-world-'));
  const commits = makeRepository(dir);
  makePackageIndexes(dir);
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  sh('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=world.test']);

  sh('ip', ['netns', 'add', WORLD.netns]);
  sh('ip', ['link', 'add', WORLD.hostVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', WORLD.netns]);
  sh('ip', ['addr', 'add', `${WORLD.hostAddress}/24`, 'dev', WORLD.hostVeth]);
  sh('ip', ['link', 'set', WORLD.hostVeth, 'up']);
  for (const address of [WORLD.serverA, WORLD.serverB]) sh('ip', ['-n', WORLD.netns, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
  sh('ip', ['-n', WORLD.netns, 'link', 'set', 'eth0', 'up']);
  sh('ip', ['-n', WORLD.netns, 'link', 'set', 'lo', 'up']);
  sh('ip', ['-n', WORLD.netns, 'route', 'add', 'default', 'via', WORLD.hostAddress]);

  const log = path.join(dir, 'requests.log');
  fs.writeFileSync(log, '');
  const serverConfig = {
    root: path.join(dir, 'root'),
    hosts: [WORLD.serverA, WORLD.serverB],
    key,
    cert,
    log,
    privateAuthorization: `Basic ${Buffer.from(`x-access-token:${PRIVATE_TOKEN}`).toString('base64')}`,
  };
  const server: ChildProcess = spawn('nsenter', [`--net=/run/netns/${WORLD.netns}`, '--', process.execPath, path.resolve('test/fixtures/https-static.mjs'), JSON.stringify(serverConfig)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let errors = '';
    const timer = setTimeout(() => reject(new Error(`world server did not start: ${errors}`)), 10_000);
    server.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && (clearTimeout(timer), resolve()));
    server.stderr!.on('data', (chunk: Buffer) => (errors += chunk));
    server.on('exit', (code) => reject(new Error(`world server exited with ${code}: ${errors}`)));
  });

  return {
    dir,
    commits,
    requests: () => ndjsonLines(fs.readFileSync(log, 'utf8')),
    async close() {
      server.kill('SIGKILL');
      teardownNetwork();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
