// What a create request asks for, checked across fields (the schema checks each field alone), and the
// sizing and allowlist it comes to.
import { Invalid } from '../core/errors.js';
import { InvalidAllowlistEntry, parseAllowlist } from '../runtime/network/index.js';
import { validateCallbackUrls } from './callbacks/urls.js';
import type { CreateSandboxInput } from './schemas.js';

export const DEFAULT_CPUS = 2;
export const DEFAULT_MEMORY_MB = 512;
export const DEFAULT_DISK_GB = 5;

/** `cpus` and `memory_mb` win over `resources`; a fractional cpu is rounded up to whole cores. */
export function effectiveSizing(input: CreateSandboxInput): { cpus: number; memoryMb: number } {
  const cpus = input.cpus ?? (input.resources?.cpu !== undefined ? Math.ceil(input.resources.cpu) : DEFAULT_CPUS);
  const memoryMb = input.memory_mb ?? (input.resources?.memory !== undefined ? Math.round(input.resources.memory * 1024) : DEFAULT_MEMORY_MB);
  return { cpus, memoryMb };
}

export function validateCombination(input: CreateSandboxInput, policy: { allowPrivate: boolean; allowHttp: boolean }): void {
  validateCallbackUrls(input, policy);
  const mode = input.network_mode ?? 'full';
  if (mode === 'allowlist' && !input.allowlist?.length) throw new Invalid('body.allowlist', 'is required (non-empty) when network_mode is allowlist');
  if (mode !== 'allowlist' && input.allowlist !== undefined) throw new Invalid('body.allowlist', 'is only used with network_mode allowlist');
  if (input.allowlist) {
    try {
      parseAllowlist(input.allowlist);
    } catch (error) {
      if (error instanceof InvalidAllowlistEntry) throw new Invalid('body.allowlist', error.message);
      throw error;
    }
  }
  for (const field of ['repo_token', 'repo_branch', 'repo_commit', 'repo_subdir'] as const) {
    if (input[field] !== undefined && !input.repo) throw new Invalid(`body.${field}`, 'needs body.repo');
  }
  if (input.repo) {
    let url: URL;
    try {
      url = new URL(input.repo);
    } catch {
      throw new Invalid('body.repo', 'must be an https URL');
    }
    if (url.protocol !== 'https:') throw new Invalid('body.repo', 'must be an https URL');
    // The URL is stored and shown to every key that can read the sandbox; a token belongs in repo_token, which is not.
    if (url.username || url.password) throw new Invalid('body.repo', 'must not carry credentials (user:token@): send the token in repo_token, which is never stored or returned');
    if (mode === 'none') throw new Invalid('body.repo', 'needs network access to clone: use network_mode full or allowlist');
  }
  if (input.packages?.length && !/^(node|python)-/.test(input.template)) {
    throw new Invalid('body.packages', 'can only be installed on node-* (npm) and python-* (pip) templates');
  }
}

/** The allowlist the network layer enforces: the user's, plus the repository host so the clone works. */
export function effectiveAllowlist(input: CreateSandboxInput): string[] {
  if ((input.network_mode ?? 'full') !== 'allowlist') return [];
  const entries = [...(input.allowlist ?? [])];
  if (input.repo) {
    const host = new URL(input.repo).hostname;
    if (!entries.includes(host)) entries.push(host);
  }
  return entries;
}
