// The built `paddock` (dist/ through bin/paddock.js) on every supported Node.js, whichever one runs the
// tests: one node_modules holds a better-sqlite3 build per Node ABI (scripts/native-addons.sh).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_NODE_MAJORS } from '../../src/cli/node-support.js';
import { runCli, startServe } from '../helpers/cli.js';

const made: string[] = [];
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-node-'));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

// find-node.sh answers at once when `npm run test:all` prepared the Node; on a bare checkout it
// installs it from the npm registry and native-addons.sh compiles better-sqlite3 for it (minutes).
const nodes = new Map<number, string>();
beforeAll(() => {
  for (const major of SUPPORTED_NODE_MAJORS) {
    nodes.set(major, execFileSync('bash', ['scripts/find-node.sh', String(major)], { encoding: 'utf8' }).trim());
  }
  execFileSync('bash', ['scripts/native-addons.sh', ...nodes.values()], { stdio: 'inherit' });
}, 900_000);

describe.each(SUPPORTED_NODE_MAJORS.map((major) => ({ major })))('paddock on Node $major', ({ major }) => {
  it('migrates a SQLite database, says in doctor which Node it runs on, and serves the API from it', async () => {
    const node = nodes.get(major)!;
    const data = tmp();
    const migrated = await runCli(['migrate', '--data', data], {}, node);
    expect(migrated.stderr).toBe('');
    expect(migrated.stdout).toContain('applied: 0001_foundation');

    const doctor = await runCli(['doctor'], {}, node);
    expect(doctor.stdout).toMatch(new RegExp(`^OK +node: v${major}\\.\\d+\\.\\d+`, 'm'));

    const served = await startServe(['--port', '0', '--data', data], {}, 20_000, node);
    try {
      const key = /^API key: (svc_sk_\S+)$/m.exec(served.stdout())?.[1];
      const account = await fetch(`${served.url}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
      expect(account.status).toBe(200);
      expect(await account.json()).toMatchObject({ email: 'admin@paddock.local' });
    } finally {
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(0);
    }
  });
});
