// A task's events live over server-sent events (GET /v1/a2a/tasks/{id}/stream; the session cookie
// authenticates it). The stream replays the log, then follows it until `complete` or `error`, where we
// close it: EventSource would otherwise reconnect to an ended stream forever. On a dropped connection
// EventSource reconnects with Last-Event-ID, and the log resumes after it.
import { useEffect, useState } from 'react';

export interface TaskEvent {
  sequence: number;
  kind: string;
  data: Record<string, unknown>;
}

const KINDS = ['status', 'progress', 'message', 'artifact', 'complete', 'error'] as const;

export type StreamState = 'connecting' | 'live' | 'ended' | 'lost';

export function useTaskStream(taskId: string): { events: TaskEvent[]; state: StreamState } {
  const [events, setEvents] = useState<TaskEvent[]>([]);
  const [state, setState] = useState<StreamState>('connecting');

  useEffect(() => {
    setEvents([]);
    setState('connecting');
    const source = new EventSource(`/v1/a2a/tasks/${encodeURIComponent(taskId)}/stream`);
    let last = 0;
    // The task's `error` events share their name with EventSource's own connection errors: only
    // MessageEvents carry the task's.
    const receive = (kind: string) => (message: Event) => {
      if (!(message instanceof MessageEvent) || typeof message.data !== 'string') return;
      const sequence = Number(message.lastEventId);
      if (sequence && sequence <= last) return;
      last = sequence || last;
      setEvents((previous) => [...previous, { sequence, kind, data: JSON.parse(message.data) as Record<string, unknown> }]);
      if (kind === 'complete' || kind === 'error') {
        source.close();
        setState('ended');
      }
    };
    for (const kind of KINDS) source.addEventListener(kind, receive(kind));
    source.onopen = () => setState('live');
    source.onerror = (event) => {
      if (event instanceof MessageEvent) return;
      if (source.readyState === EventSource.CLOSED) setState((current) => (current === 'ended' ? current : 'lost'));
      else setState((current) => (current === 'ended' ? current : 'connecting'));
    };
    return () => source.close();
  }, [taskId]);

  return { events, state };
}
