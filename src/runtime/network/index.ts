// The sandbox network layer's public surface, used by the runtime drivers.
export { createSandboxNetwork, type SandboxNetwork } from './sandbox-network.js';
export { DEFAULT_DENIED_EGRESS, hostDnsServers, networkNameProblem, type ExposedHostPort, type NetworkNameOption, type NetworkOptions } from './options.js';
export { InvalidAllowlistEntry, parseAllowlist, type ParsedAllowlist } from './allowlist.js';
export { sandboxHostsFile, sandboxNameFiles, sandboxResolvConf } from './sandbox-files.js';
export { netnsExec } from './netns.js';
export type { CommandResult } from './command.js';
