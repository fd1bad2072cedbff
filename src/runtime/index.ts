// Entry point of the runtime layer: pick a driver, build it, and re-export the seam and templates.
import { run } from './host/command.js';
import { createSandboxNetwork, type ExposedHostPort, type NetworkNameOption, type SandboxNetwork } from './network/index.js';
import { GvisorDriver } from './gvisor/gvisor-driver.js';
import { OciSandboxRuntime } from './oci/oci-runtime.js';
import { runtimePaths } from './paths.js';
import { RuncDriver } from './runc/runc-driver.js';
import type { RuntimeName, SandboxRuntime } from './runtime.js';
import path from 'node:path';

export * from './runtime.js';
export * from './errors.js';
export * from './templates/index.js';
export { timedOutExitCode } from './oci/exec-process.js';

export interface CreateRuntimeOptions {
  dataDir: string;
  /** Default: the Linux network layer with its state under `<dataDir>/network`. */
  network?: SandboxNetwork;
  dnsServers?: string[];
  pidsLimit?: number;
  /** Host ports on the bridge address sandboxes may reach (used when `network` is not given). */
  exposedHostPorts?: ExposedHostPort[];
  /** Bridge, subnet, nftables table and name prefixes (used when `network` is not given); unset: the defaults. */
  networkNames?: Partial<Record<NetworkNameOption, string>>;
}

export function createRuntime(name: RuntimeName, options: CreateRuntimeOptions): SandboxRuntime {
  const paths = runtimePaths(options.dataDir);
  const network =
    options.network ?? createSandboxNetwork({ ...options.networkNames, stateDir: path.join(paths.dataDir, 'network'), dnsServers: options.dnsServers, exposedHostPorts: options.exposedHostPorts });
  const driver = name === 'gvisor' ? new GvisorDriver(paths.runscRoot) : new RuncDriver(paths.runcRoot);
  return new OciSandboxRuntime(driver, { dataDir: options.dataDir, network, dnsServers: options.dnsServers, pidsLimit: options.pidsLimit });
}

/** Oldest runsc build known to run a Debian rootfs (Debian 12's 20221219 build fails on statx). */
const minimumRunscBuild = 20240101;

export interface RuntimeChoice {
  name: RuntimeName;
  /** Set when gVisor could not be used, saying why. */
  warning?: string;
}

export async function detectDefaultRuntime(): Promise<RuntimeChoice> {
  try {
    const { stdout } = await run('runsc', ['--version'], { timeoutMs: 10_000 });
    const build = Number(/(20\d{6})/.exec(stdout)?.[1] ?? 0);
    if (build >= minimumRunscBuild) return { name: 'gvisor' };
    return { name: 'runc', warning: `runsc build ${build || 'unknown'} is too old (need ${minimumRunscBuild} or newer); using runc` };
  } catch {
    return { name: 'runc', warning: 'runsc (gVisor) not found; using runc, a weaker isolation boundary' };
  }
}
