// Follows a background process's output over HTTP (NDJSON or SSE) and collects the events with the time each arrived.
export interface FollowedEvent {
  type: string;
  offset?: number;
  data?: string;
  exit_code?: number | null;
  signal?: string | null;
  id?: string;
  at: number;
}

export interface FollowOptions {
  offset?: number;
  sse?: boolean;
  signal?: AbortSignal;
  onEvent?(event: FollowedEvent): void;
}

/** Resolves with every event once the stream ends (or `signal` aborts it). */
export async function follow(baseUrl: string, token: string, path: string, options: FollowOptions = {}): Promise<{ status: number; contentType: string; events: FollowedEvent[] }> {
  const response = await fetch(`${baseUrl}${path}/output?follow=true&offset=${options.offset ?? 0}`, {
    headers: { authorization: `Bearer ${token}`, ...(options.sse ? { accept: 'text/event-stream' } : {}) },
    signal: options.signal,
  });
  const events: FollowedEvent[] = [];
  const contentType = response.headers.get('content-type') ?? '';
  if (response.status !== 200 || !response.body) return { status: response.status, contentType, events };
  const decoder = new TextDecoder();
  let pending = '';
  const separator = options.sse ? '\n\n' : '\n';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = pending.indexOf(separator)) >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + separator.length);
        if (!block.trim()) continue;
        const event = options.sse ? parseSse(block) : { ...JSON.parse(block), at: performance.now() };
        events.push(event);
        options.onEvent?.(event);
      }
    }
  } catch (error) {
    if (!options.signal?.aborted) throw error;
  }
  return { status: response.status, contentType, events };
}

function parseSse(block: string): FollowedEvent {
  const fields = new Map<string, string>();
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
  }
  const data = JSON.parse(fields.get('data') ?? '{}');
  if (data.type !== fields.get('event')) throw new Error(`SSE event ${fields.get('event')} carries ${data.type}`);
  return { ...data, id: fields.get('id'), at: performance.now() };
}

/** The stdout (or stderr) text of a list of events, in offset order. */
export function textOf(events: FollowedEvent[], stream = 'stdout'): string {
  return events
    .filter((event) => event.type === stream)
    .map((event) => event.data)
    .join('');
}
