// The sandbox area's shapes, taken from the types generated from the server's /openapi.json so they
// cannot drift from what the server answers.
import type { BodyOf, QueryOf, ResponseOf } from '../core/types.js';

/** What POST /v1/sandboxes takes: `template` plus optional sizing, network, env, repo, set-up steps. */
export type CreateSandboxParams = BodyOf<'/v1/sandboxes', 'post'>;
/** What POST /v1/sandboxes answers. */
export type SandboxCreatedInfo = ResponseOf<'/v1/sandboxes', 'post', 201>;
/** A sandbox as GET /v1/sandboxes/{id} describes it. */
export type SandboxInfo = ResponseOf<'/v1/sandboxes/{id}', 'get'>;
/** One item of GET /v1/sandboxes. */
export type SandboxListItem = ResponseOf<'/v1/sandboxes', 'get'>[number];
export type SandboxStatus = SandboxInfo['status'];
export type SandboxListQuery = QueryOf<'/v1/sandboxes', 'get'>;
export type Template = ResponseOf<'/v1/templates', 'get'>[number];

export type ExecBody = BodyOf<'/v1/sandboxes/{id}/exec', 'post'>;
export type ExecAnswer = ResponseOf<'/v1/sandboxes/{id}/exec', 'post'>;
export type PauseResult = ResponseOf<'/v1/sandboxes/{id}/pause', 'post'>;

export type FileEntry = ResponseOf<'/v1/sandboxes/{id}/files', 'get'>[number];
export type FileWritten = ResponseOf<'/v1/sandboxes/{id}/files/content', 'put'>;

export type PortInfo = ResponseOf<'/v1/sandboxes/{id}/ports', 'get'>[number];
export type PortProtection = ResponseOf<'/v1/sandboxes/{id}/ports/{port}/protect', 'post'>;

export type SnapshotInfo = ResponseOf<'/v1/sandboxes/{id}/snapshots', 'post', 201>;
export type SnapshotRestored = ResponseOf<'/v1/snapshots/{id}/restore', 'post'>;
export type SnapshotDownloadLink = ResponseOf<'/v1/snapshots/{id}/download', 'get'>;

export type TerminalTicket = ResponseOf<'/v1/sandboxes/{id}/terminal/tickets', 'post', 201>;

/** Path segment of a sandbox (or any id) in a URL. */
export const segment = (id: string): string => encodeURIComponent(id);
