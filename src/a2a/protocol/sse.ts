// Server-sent events for the protocol's streaming answers, written on the raw response (the reply is
// hijacked, so the headers Fastify already holds — request id, rate limits — are copied over). An event
// that comes from the task's event log carries its sequence as the SSE `id`, so a client can resume with
// Last-Event-ID; a comment line every 15 s keeps idle connections (a task waiting for input) open.
import type { FastifyReply } from 'fastify';
import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';

const HEARTBEAT_MS = 15_000;

/** The event log sequence an encoded event carries (`metadata.sequence` of the update, inside a JSON-RPC `result` or not). */
function sequenceOf(encoded: unknown): number | null {
  const outer = (encoded as { result?: unknown })?.result ?? encoded;
  if (typeof outer !== 'object' || outer === null) return null;
  for (const candidate of [outer, ...Object.values(outer)]) {
    const sequence = (candidate as { metadata?: { sequence?: unknown } } | null)?.metadata?.sequence;
    if (typeof sequence === 'number') return sequence;
  }
  return null;
}

function formatEvent(encoded: unknown): string {
  const sequence = sequenceOf(encoded);
  return `${sequence === null ? '' : `id: ${sequence}\n`}${formatSSEEvent(encoded)}`;
}

/**
 * Streams `events` as SSE. An error before the first event is answered by `answerEarlyError` as a
 * plain response (the SDK's transports do the same); a later one becomes an `error` event.
 */
export async function sendSse<T>(
  reply: FastifyReply,
  events: AsyncGenerator<T, void, undefined>,
  encode: (event: T) => unknown,
  errorEvent: (error: unknown) => unknown,
  answerEarlyError: (error: unknown) => unknown,
): Promise<void> {
  let first: IteratorResult<T, void>;
  try {
    first = await events.next();
  } catch (error) {
    await answerEarlyError(error);
    return;
  }
  reply.hijack();
  const raw = reply.raw;
  const { 'content-type': _json, ...kept } = reply.getHeaders() as Record<string, string>;
  raw.writeHead(200, { ...kept, ...SSE_HEADERS });
  raw.flushHeaders();
  const heartbeat = setInterval(() => raw.destroyed || raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
  try {
    if (!first.done) raw.write(formatEvent(encode(first.value)));
    for (let next = await events.next(); !next.done; next = await events.next()) {
      if (raw.destroyed) break;
      raw.write(formatEvent(encode(next.value)));
    }
  } catch (error) {
    if (!raw.destroyed) raw.write(formatSSEErrorEvent(errorEvent(error)));
  } finally {
    clearInterval(heartbeat);
    await events.return(undefined);
    if (!raw.writableEnded) raw.end();
  }
}
