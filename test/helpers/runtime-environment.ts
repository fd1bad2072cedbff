// Shared settings of the runtime tests: a data dir kept across runs (gitignored) and the template they use.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRuntime } from '../../src/runtime/index.js';
import type { RuntimeName, SandboxRuntime, SandboxSpec } from '../../src/runtime/runtime.js';
import { createLoopbackNetwork } from './loopback-network.js';

export const testDataDir = path.resolve('.test-data');
export const testTemplate = 'python-311';
/** Built too (a few seconds over the shared base) for the Node.js checks. */
export const testNodeTemplate = 'node-22';
export const testPidsLimit = 256;

export function testRuntime(name: RuntimeName): SandboxRuntime {
  return createRuntime(name, { dataDir: testDataDir, network: createLoopbackNetwork(), dnsServers: [], pidsLimit: testPidsLimit });
}

export function testSpec(overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    id: `t${randomBytes(5).toString('hex')}`,
    template: testTemplate,
    cpus: 1,
    memoryMb: 256,
    diskGb: 1,
    networkMode: 'none',
    allowlist: [],
    env: {},
    ...overrides,
  };
}

export interface ShellResult {
  out: string;
  err: string;
  code: number;
  timedOut: boolean;
  truncated: boolean;
}

export async function shell(runtime: SandboxRuntime, id: string, command: string, timeoutMs = 20_000): Promise<ShellResult> {
  const result = await runtime.exec(id, { command, timeoutMs, maxOutputBytes: 1024 * 1024 });
  return {
    out: result.stdout.toString(),
    err: result.stderr.toString(),
    code: result.exitCode,
    timedOut: result.timedOut,
    truncated: result.truncated,
  };
}
