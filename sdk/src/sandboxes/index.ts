// The sandbox area's public surface.
export { Sandboxes, type ListSandboxesOptions } from './sandboxes.js';
export { Sandbox, type CreateOptions } from './sandbox.js';
export { Commands, type CommandResult, type RunOptions } from './commands.js';
export {
  Processes,
  ProcessHandle,
  type ProcessInfo,
  type ProcessStatus,
  type ProcessSignal,
  type ProcessOutput,
  type OutputChunk,
  type StartProcessOptions,
  type AttachOptions,
  type ProcessExit,
} from './processes.js';
export { Files, MAX_FILE_BYTES, type FileSource } from './files.js';
export { Terminal, Terminals, type TerminalOptions, type TerminalExit, type WebSocketConstructor, type WebSocketLike } from './terminal.js';
export { Ports } from './ports.js';
export { Snapshots } from './snapshots.js';
export type {
  CreateSandboxParams,
  SandboxCreatedInfo,
  SandboxInfo,
  SandboxListItem,
  SandboxStatus,
  Template,
  FileEntry,
  FileWritten,
  PortInfo,
  PortProtection,
  SnapshotInfo,
  SnapshotRestored,
  SnapshotDownloadLink,
  PauseResult,
} from './types.js';
