// The replay timeline's events, fetched page by page (CHUNK events each) as the visible window needs them,
// so a session of 100,000 events costs only the pages the user scrolls past. Unfiltered, sequences are
// 1, 2, 3 … without gaps, so any page can be fetched directly (after_seq = its first index); filtered by
// type, each page starts where the previous one ended (next_seq), so pages load in order.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, query } from '../../api/client';
import type { EventType, ReplayEvent, ReplayPage } from './types';

export const CHUNK = 500;

interface Chunk {
  events: ReplayEvent[];
  nextSeq: number;
}

export interface ReplayChunks {
  /** Events known so far; undefined where not loaded yet. */
  eventAt(index: number): ReplayEvent | undefined;
  /** Events in the list (of `type` when filtered), as the API last counted them. */
  total: number;
  /** Asks for the pages covering indexes first..last. */
  want(first: number, last: number): void;
  error: Error | null;
  /** Pages loaded so far. */
  loadedChunks: number;
}

export function useReplayChunks(sessionId: string, type: EventType | '', knownTotal: number | undefined): ReplayChunks {
  const [chunks, setChunks] = useState<Map<number, Chunk>>(new Map());
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<Error | null>(null);
  // Pages asked for, in flight or landed. A page leaves only when it failed or went stale, never when it
  // lands: until React renders the landed page, `load` still sees the chunks without it (a virtualiser's
  // synchronous re-render can call it in between), and would fetch it again.
  const requested = useRef(new Set<number>());
  // The most events the summary has counted: a partial page that answers fewer, when the count grew while
  // it was in flight, was read before the newest events and is asked again.
  const latestKnown = useRef(0);
  const wanted = useRef<[number, number]>([0, 0]);
  const generation = useRef(0);

  // A new session or filter starts over.
  useEffect(() => {
    generation.current += 1;
    requested.current.clear();
    latestKnown.current = 0;
    setChunks(new Map());
    setTotal(0);
    setError(null);
  }, [sessionId, type]);

  // New events arrived (the session is live): the last, partial page is fetched again.
  useEffect(() => {
    if (knownTotal !== undefined) latestKnown.current = Math.max(latestKnown.current, knownTotal);
    if (knownTotal === undefined || knownTotal <= total) return;
    setTotal(knownTotal);
    const last = Math.floor(Math.max(0, total - 1) / CHUNK);
    const chunk = chunks.get(last);
    if (!chunk || chunk.events.length === CHUNK) return;
    requested.current.delete(last);
    setChunks((current) => {
      const next = new Map(current);
      next.delete(last);
      return next;
    });
  }, [knownTotal, total, chunks]);

  const fetchChunk = useCallback(
    function fetchChunk(index: number, afterSeq: number) {
      if (requested.current.has(index)) return;
      requested.current.add(index);
      const mine = generation.current;
      const knownAtSend = latestKnown.current;
      api
        .get<ReplayPage>(`/v1/sessions/${encodeURIComponent(sessionId)}/replay${query({ after_seq: afterSeq, limit: CHUNK, type })}`)
        .then((page) => {
          if (mine !== generation.current) return;
          if (page.events.length < CHUNK && page.total < latestKnown.current && latestKnown.current > knownAtSend) {
            requested.current.delete(index);
            fetchChunk(index, afterSeq);
            return;
          }
          setTotal((current) => Math.max(current, page.total));
          setChunks((current) => new Map(current).set(index, { events: page.events, nextSeq: page.next_seq }));
          setError(null);
        })
        .catch((caught: Error) => {
          if (mine !== generation.current) return;
          requested.current.delete(index);
          setError(caught);
        });
    },
    [sessionId, type],
  );

  const load = useCallback(() => {
    const [first, last] = wanted.current;
    const lastChunk = Math.floor(Math.max(last, 0) / CHUNK);
    const beyondEnd = (index: number) => index > 0 && index * CHUNK >= total;
    if (type === '') {
      for (let index = Math.floor(Math.max(first, 0) / CHUNK); index <= lastChunk && !beyondEnd(index); index++) if (!chunks.has(index)) fetchChunk(index, index * CHUNK);
      return;
    }
    // Filtered pages chain: each starts at the previous one's next_seq, so the first missing one is fetched
    // and, when it lands, this runs again for the next.
    for (let index = 0; index <= lastChunk && !beyondEnd(index); index++) {
      if (chunks.has(index)) continue;
      const previous = chunks.get(index - 1);
      if (index === 0 || previous) fetchChunk(index, previous?.nextSeq ?? 0);
      return;
    }
  }, [chunks, total, type, fetchChunk]);

  useEffect(load, [load]);

  const want = useCallback(
    (first: number, last: number) => {
      wanted.current = [first, last];
      load();
    },
    [load],
  );

  const eventAt = useCallback((index: number) => chunks.get(Math.floor(index / CHUNK))?.events[index % CHUNK], [chunks]);

  return { eventAt, total, want, error, loadedChunks: chunks.size };
}
