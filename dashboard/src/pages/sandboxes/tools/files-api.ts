// The file calls of the files page. The API reads and writes raw bytes; it has no mkdir or delete, so
// those run as commands through exec with the path shell-quoted.
import { api, query, request } from '../../../api/client';
import type { FileEntry } from './types';

const base = (sandboxId: string) => `/v1/sandboxes/${sandboxId}/files`;

export function listDirectory(sandboxId: string, path: string, signal?: AbortSignal): Promise<FileEntry[]> {
  return api.get<FileEntry[]>(`${base(sandboxId)}${query({ path })}`, signal);
}

/** Same-origin GET answered as application/octet-stream: a link with `download` saves it. */
export function contentUrl(sandboxId: string, path: string): string {
  return `${base(sandboxId)}/content${query({ path })}`;
}

export async function readContent(sandboxId: string, path: string, signal?: AbortSignal): Promise<Uint8Array> {
  const response = await request<Response>(contentUrl(sandboxId, path), { asResponse: true, signal, headers: { accept: 'application/octet-stream' } });
  return new Uint8Array(await response.arrayBuffer());
}

export function writeContent(sandboxId: string, path: string, bytes: BodyInit): Promise<{ path: string; size: number }> {
  return request(contentUrl(sandboxId, path), { method: 'PUT', raw: bytes, contentType: 'application/octet-stream' });
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

async function runOrThrow(sandboxId: string, command: string): Promise<void> {
  const result = await api.post<{ exit_code: number; output: string; error?: string }>(`/v1/sandboxes/${sandboxId}/exec`, { command, timeout: 60 });
  if (result.exit_code !== 0) throw new Error(result.error ?? (result.output.trim() || `the command exited with ${result.exit_code}`));
}

export function makeDirectory(sandboxId: string, path: string): Promise<void> {
  return runOrThrow(sandboxId, `mkdir -p -- ${shellQuote(path)}`);
}

export function removePath(sandboxId: string, path: string): Promise<void> {
  return runOrThrow(sandboxId, `rm -rf -- ${shellQuote(path)}`);
}

/** Joins a name typed by the user onto the directory shown (an absolute name stays as it is). */
export function childPath(directory: string, name: string): string {
  if (name.startsWith('/')) return name;
  return `${directory.replace(/\/+$/, '')}/${name}`;
}

/** Text when it decodes as UTF-8 and has no NUL byte; anything else is offered as a download. */
export function asText(bytes: Uint8Array): string | null {
  if (bytes.subarray(0, 8192).includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
