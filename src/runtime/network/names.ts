// Names of a sandbox's kernel objects, derived from its id. Interface names must fit IFNAMSIZ (15), so
// they carry a hash of the id; the netns name carries the id itself so leftovers can be traced back.
import { createHash } from 'node:crypto';
import type { NetworkConfig } from './options.js';

const SANDBOX_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function assertSandboxId(id: string): void {
  if (!SANDBOX_ID.test(id)) throw new Error(`invalid sandbox id for networking: ${JSON.stringify(id)}`);
}

/** 10 hex characters (40 bits) of sha256(id): collisions are negligible at any realistic density. */
export function idHash(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, 10);
}

export interface SandboxNames {
  hash: string;
  netns: string;
  netnsPath: string;
  hostVeth: string;
  /** nftables chain and set holding an allowlist sandbox's permitted destinations. */
  allowChain: string;
  allowSet: string;
}

export function sandboxNames(config: NetworkConfig, id: string): SandboxNames {
  assertSandboxId(id);
  const hash = idHash(id);
  const netns = `${config.netnsPrefix}${id}`;
  return {
    hash,
    netns,
    netnsPath: `/run/netns/${netns}`,
    hostVeth: `${config.interfacePrefix}${hash}`,
    allowChain: `sbx_${hash}`,
    allowSet: `allow_${hash}`,
  };
}

/** The hash inside an object name made by `sandboxNames`, or null if the name is not ours. */
export function hashInName(name: string, prefix: string): string | null {
  if (!name.startsWith(prefix)) return null;
  const rest = name.slice(prefix.length);
  return /^[0-9a-f]{10}$/.test(rest) ? rest : null;
}
