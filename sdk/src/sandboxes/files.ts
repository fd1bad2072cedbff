// `sandbox.files`: read, write, list and remove files inside the sandbox, and move bytes in and out as
// streams. Paths are absolute or relative to /workspace and cannot leave the sandbox.
import type { Http } from '../core/http.js';
import { PaddockError, PayloadTooLargeError } from '../core/errors.js';
import type { Commands } from './commands.js';
import { segment, type FileEntry, type FileWritten } from './types.js';

/** The server takes a file of at most 50 MiB in one request. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

export type FileSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

async function collect(source: FileSource): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  const iterable: AsyncIterable<Uint8Array> = Symbol.asyncIterator in source ? source : streamChunks(source as ReadableStream<Uint8Array>);
  for await (const part of iterable) {
    size += part.byteLength;
    if (size > MAX_FILE_BYTES) throw new PayloadTooLargeError({ status: 413, code: 'payload_too_large', message: `the upload is over ${MAX_FILE_BYTES} bytes, the most one file write takes` });
    parts.push(part);
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.byteLength;
  }
  return whole;
}

async function* streamChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

export class Files {
  constructor(
    private readonly http: Http,
    private readonly sandboxId: string,
    private readonly commands: Commands,
  ) {}

  private get base(): string {
    return `/v1/sandboxes/${segment(this.sandboxId)}/files`;
  }

  /** The file as UTF-8 text. */
  async read(path: string): Promise<string> {
    return new TextDecoder().decode(await this.readBytes(path));
  }

  async readBytes(path: string): Promise<Uint8Array> {
    const response = await this.http.stream('GET', `${this.base}/content`, { query: { path }, timeoutMs: 300_000 });
    return new Uint8Array(await response.arrayBuffer());
  }

  /** Creates or replaces the file (parent directories are created). */
  async write(path: string, data: string | Uint8Array): Promise<FileWritten> {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    return this.http.request<FileWritten>('PUT', `${this.base}/content`, { query: { path }, rawBody: bytes as BodyInit, contentType: 'application/octet-stream' });
  }

  /** Entries of a directory, sorted by name. */
  async list(path = '/workspace'): Promise<FileEntry[]> {
    return this.http.request<FileEntry[]>('GET', this.base, { query: { path } });
  }

  /** Removes a file or a directory with everything in it; nothing happens when it does not exist. */
  async remove(path: string): Promise<void> {
    // Through the environment, not the command text: the path never reaches the shell's parser.
    const result = await this.commands.run('rm -rf -- "$PADDOCK_REMOVE_PATH"', { env: { PADDOCK_REMOVE_PATH: path } });
    if (result.exitCode !== 0) throw new PaddockError({ status: 0, code: 'remove_failed', message: `could not remove ${path}: ${result.stderr.trim()}` });
  }

  /**
   * Writes a file from a stream. The server takes a file in one request (at most 50 MiB), so the bytes are
   * gathered first; that also lets a broken connection be retried.
   */
  async upload(path: string, source: FileSource): Promise<FileWritten> {
    return this.write(path, await collect(source));
  }

  /** The file's bytes as a stream, read as they arrive. */
  async download(path: string): Promise<ReadableStream<Uint8Array>> {
    const response = await this.http.stream('GET', `${this.base}/content`, { query: { path } });
    return response.body ?? new ReadableStream({ start: (controller) => controller.close() });
  }
}
