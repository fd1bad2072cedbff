// A client command (`paddock keys list`, …) is a short-lived process people run by hand and in scripts:
// it must load the SDK and its own modules, not the server's, which take over a second to load.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-cli-startup-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function modulesLoadedBy(args: string[]): string[] {
  const log = path.join(dir, `${args.join('-')}.log`);
  const run = spawnSync(process.execPath, ['--import', path.resolve('test/helpers/loaded-modules/register.mjs'), BIN, ...args], {
    env: { ...process.env, LOADED_MODULES_LOG: log, PADDOCK_URL: 'http://127.0.0.1:9', PADDOCK_API_KEY: 'pdk_not_a_key', PADDOCK_CONFIG: path.join(dir, 'none.json') },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).not.toBe(null);
  const server = pathToFileURL(path.resolve('dist')).href + '/';
  return [...new Set(fs.readFileSync(log, 'utf8').split('\n'))].filter((url) => url.startsWith(server)).map((url) => url.slice(server.length));
}

it.each([
  ['keys', 'list'],
  ['sandbox', 'list'],
  ['login', '--help'],
])('paddock %s %s loads the client modules and none of the server', (...args) => {
  const loaded = modulesLoadedBy(args);
  expect(loaded).toContain('cli/client/index.js');
  expect(loaded.filter((module) => module !== 'main.js' && !module.startsWith('cli/client/'))).toEqual([]);
});
