// Server-sent events for the protocol's streaming answers, written on the raw response (the reply is
// hijacked, so the headers Fastify already holds — request id, rate limits — are copied over).
import type { FastifyReply } from 'fastify';
import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';

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
  try {
    if (!first.done) raw.write(formatSSEEvent(encode(first.value)));
    for (let next = await events.next(); !next.done; next = await events.next()) {
      if (raw.destroyed) break;
      raw.write(formatSSEEvent(encode(next.value)));
    }
  } catch (error) {
    if (!raw.destroyed) raw.write(formatSSEErrorEvent(errorEvent(error)));
  } finally {
    await events.return(undefined);
    if (!raw.writableEnded) raw.end();
  }
}
