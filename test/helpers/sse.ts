// A server-sent events client for tests (and the benchmark): fetch with a streamed body, parsed into
// frames as they arrive, each stamped with its arrival time, with a way to wait for one and to hang up.
export interface SseFrame {
  id: string | null;
  event: string;
  data: any;
  receivedAt: number;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The body when the answer was not a stream (an error), parsed as JSON when it is. */
  body: any;
  frames: SseFrame[];
  comments: string[];
  /** Resolves when the server ends the stream (or it is closed). */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Resolves with the first frame (from the start) matching `match`. */
  waitFor(match: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  close(): void;
}

export async function openSse(url: string, options: { token?: string; headers?: Record<string, string> } = {}): Promise<SseStream> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(url, { headers, signal: controller.signal });
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const listeners = new Set<() => void>();
  let ended = false;
  const notify = () => {
    for (const listener of listeners) listener();
  };

  const stream: SseStream = {
    status: response.status,
    headers: response.headers,
    body: null,
    frames,
    comments,
    ended: Promise.resolve(),
    isEnded: () => ended,
    waitFor(match, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = frames.find(match);
          if (found) return done(() => resolve(found));
          if (ended) return done(() => reject(new Error(`stream ended without the frame; got ${JSON.stringify(frames.map((f) => [f.id, f.event]))}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`no such frame within ${timeoutMs} ms; got ${JSON.stringify(frames.map((f) => [f.id, f.event]))}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    close: () => controller.abort(),
  };

  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await response.text();
    try {
      stream.body = JSON.parse(text);
    } catch {
      stream.body = text;
    }
    ended = true;
    return stream;
  }

  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const frame: SseFrame = { id: null, event: 'message', data: undefined, receivedAt: Date.now() };
          let isFrame = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) ((frame.id = line.slice(4)), (isFrame = true));
            else if (line.startsWith('event: ')) ((frame.event = line.slice(7)), (isFrame = true));
            else if (line.startsWith('data: ')) ((frame.data = JSON.parse(line.slice(6))), (isFrame = true));
          }
          if (isFrame) frames.push(frame);
          notify();
        }
      }
    } catch {
      // Aborted by close(), or the connection dropped: the stream is over either way.
    } finally {
      ended = true;
      notify();
    }
  })();
  return stream;
}
