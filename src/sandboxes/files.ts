// Files inside a sandbox. Every operation runs as a process inside the sandbox, so paths, `..` and
// symlinks resolve in the sandbox's own root and can never reach the host's files.
import path from 'node:path';
import { BadRequest, HttpError, Invalid, NotFound } from '../core/errors.js';
import type { SandboxService } from './service.js';
import { shellQuote } from './setup-steps.js';

export const FILE_READ_LIMIT_BYTES = 50 * 1024 * 1024;
export const FILE_WRITE_LIMIT_BYTES = 50 * 1024 * 1024;

const NOT_FOUND = 2;
const WRONG_TYPE = 3;
const TOO_LARGE = 4;

export interface FileEntry {
  name: string;
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  mode: string;
  modified_at: string;
}

/** Relative paths are relative to /workspace. */
export function sandboxPath(raw: string): string {
  if (raw.includes('\0')) throw new Invalid('query.path', 'must not contain NUL bytes');
  return path.posix.resolve('/workspace', raw);
}

function fail(exitCode: number, target: string, stderr: string): never {
  if (exitCode === NOT_FOUND) throw new NotFound(`path ${target}`);
  if (exitCode === WRONG_TYPE) throw new BadRequest(stderr.trim() || `${target} has the wrong type`);
  if (exitCode === TOO_LARGE) throw new HttpError(413, `${target} is larger than ${FILE_READ_LIMIT_BYTES} bytes; read it in parts with exec`, 'payload_too_large');
  throw new BadRequest(stderr.trim() || `operation on ${target} failed with exit code ${exitCode}`);
}

const TYPES: Record<string, FileEntry['type']> = { f: 'file', d: 'directory', l: 'symlink' };

export async function listDirectory(sandboxes: SandboxService, accountId: string, id: string, rawPath: string): Promise<FileEntry[]> {
  const target = sandboxPath(rawPath);
  const p = shellQuote(target);
  const command = [
    `[ -e ${p} ] || exit ${NOT_FOUND}`,
    `[ -d ${p} ] || { echo "${target.replaceAll('"', '')} is not a directory" >&2; exit ${WRONG_TYPE}; }`,
    `find ${p} -mindepth 1 -maxdepth 1 -printf '%f\\0%y\\0%s\\0%m\\0%T@\\0'`,
  ].join('\n');
  const result = await sandboxes.run(accountId, id, { timeoutMs: 60_000, command, maxOutputBytes: 16 * 1024 * 1024 });
  if (result.exitCode !== 0) fail(result.exitCode, target, result.stderr.toString());
  const fields = result.stdout.toString('utf8').split('\0');
  const entries: FileEntry[] = [];
  for (let i = 0; i + 4 < fields.length; i += 5) {
    const [name, type, size, mode, mtime] = fields.slice(i, i + 5);
    entries.push({
      name,
      path: path.posix.join(target, name),
      type: TYPES[type] ?? 'other',
      size: Number(size),
      mode: mode.padStart(4, '0'),
      modified_at: new Date(Number(mtime) * 1000).toISOString(),
    });
  }
  return entries.sort((a, b) => a.name.localeCompare(b.name));
}

export async function readFile(sandboxes: SandboxService, accountId: string, id: string, rawPath: string): Promise<Buffer> {
  const target = sandboxPath(rawPath);
  const p = shellQuote(target);
  const command = [
    `[ -e ${p} ] || exit ${NOT_FOUND}`,
    `[ -f ${p} ] || { echo "${target.replaceAll('"', '')} is not a regular file" >&2; exit ${WRONG_TYPE}; }`,
    `[ "$(stat -L -c %s ${p})" -le ${FILE_READ_LIMIT_BYTES} ] || exit ${TOO_LARGE}`,
    `exec cat -- ${p}`,
  ].join('\n');
  const result = await sandboxes.run(accountId, id, { timeoutMs: 60_000, command, maxOutputBytes: FILE_READ_LIMIT_BYTES });
  if (result.exitCode !== 0) fail(result.exitCode, target, result.stderr.toString());
  return result.stdout;
}

export async function writeFile(sandboxes: SandboxService, accountId: string, id: string, rawPath: string, content: Buffer) {
  const target = sandboxPath(rawPath);
  if (target === '/') throw new Invalid('query.path', 'must name a file');
  const p = shellQuote(target);
  const command = [`[ ! -d ${p} ] || { echo "${target.replaceAll('"', '')} is a directory" >&2; exit ${WRONG_TYPE}; }`, `mkdir -p -- "$(dirname -- ${p})" && cat > ${p}`].join('\n');
  const result = await sandboxes.run(accountId, id, { timeoutMs: 60_000, command, stdin: content, maxOutputBytes: 64 * 1024 });
  if (result.exitCode !== 0) fail(result.exitCode, target, result.stderr.toString());
  return { path: target, size: content.length };
}
