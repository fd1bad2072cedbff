// Reading the server's streams: NDJSON (exec, process output) and SSE (A2A tasks, process output).

async function* textChunks(response: Response): AsyncGenerator<string> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield decoder.decode(value, { stream: true });
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } finally {
    reader.releaseLock();
    await response.body.cancel().catch(() => undefined);
  }
}

/** Each line of an `application/x-ndjson` body, parsed. */
export async function* ndjson<T = unknown>(response: Response): AsyncGenerator<T> {
  let buffered = '';
  for await (const chunk of textChunks(response)) {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) yield JSON.parse(line) as T;
    }
  }
  if (buffered.trim()) yield JSON.parse(buffered) as T;
}

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** Each event of a `text/event-stream` body (comments and keep-alives skipped). */
export async function* sse(response: Response): AsyncGenerator<SseEvent> {
  let buffered = '';
  let event: Partial<SseEvent> & { data?: string } = {};
  for await (const chunk of textChunks(response)) {
    buffered += chunk.replace(/\r\n?/g, '\n');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line === '') {
        if (event.data !== undefined) yield { event: event.event ?? 'message', data: event.data, id: event.id };
        event = {};
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') event.data = event.data === undefined ? value : `${event.data}\n${value}`;
      else if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
    }
  }
}
