// Loads something from the API and keeps it fresh: `poll` re-reads it every `pollMs` while the tab is
// visible, backing off (doubling, up to 5 min) after an error and waiting out a 429's Retry-After, so a
// page left open stays inside the plan's request rate.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client';

export interface ApiState<T> {
  data: T | undefined;
  error: ApiError | Error | null;
  loading: boolean;
  /** Reads again now (after a change the page made). */
  reload(): Promise<void>;
  /** Replaces the data locally (an optimistic change, or an answer the page already has). */
  setData(data: T): void;
}

const MAX_BACKOFF_MS = 5 * 60_000;

export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[], options: { pollMs?: number; enabled?: boolean } = {}): ApiState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const controller = useRef<AbortController | null>(null);
  const enabled = options.enabled ?? true;

  const run = useCallback(async (): Promise<number | null> => {
    controller.current?.abort();
    const mine = new AbortController();
    controller.current = mine;
    try {
      const value = await loadRef.current(mine.signal);
      if (mine.signal.aborted) return null;
      setData(value);
      setError(null);
      return null;
    } catch (caught) {
      if (mine.signal.aborted || (caught instanceof DOMException && caught.name === 'AbortError')) return null;
      setError(caught as Error);
      return caught instanceof ApiError && caught.retryAfterSeconds ? caught.retryAfterSeconds * 1000 : -1;
    } finally {
      if (!mine.signal.aborted) setLoading(false);
    }
  }, []);

  // Other things to load start empty; a new poll interval (a page going live) keeps what is shown.
  useEffect(() => {
    if (!enabled) return;
    setLoading(true);
    setData(undefined);
    setError(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, enabled]);

  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let backoff = options.pollMs ?? 0;
    const tick = async () => {
      if (stopped) return;
      if (document.visibilityState === 'hidden') {
        timer = setTimeout(tick, options.pollMs);
        return;
      }
      const wait = await run();
      if (stopped || !options.pollMs) return;
      if (wait === null) backoff = options.pollMs;
      else backoff = wait > 0 ? Math.max(wait, options.pollMs) : Math.min(backoff * 2, MAX_BACKOFF_MS);
      timer = setTimeout(tick, backoff);
    };
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      controller.current?.abort();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, options.pollMs, enabled]);

  const reload = useCallback(async () => {
    await run();
  }, [run]);

  return { data, error, loading, reload, setData };
}
