// The replay timeline: every event of the session in sequence, virtualised (only the rows in view and a
// few around them are in the DOM) and fetched page by page as the user scrolls. The scroll container is
// data-testid="replay-list" and each rendered event data-testid="replay-event": the benchmark reads them.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { formatDuration, formatUsd } from '../../components/format';
import { ErrorState } from '../../components/states';
import { eventSummary } from './eventSummary';
import type { Finding, ReplayEvent } from './types';
import type { ReplayChunks } from './useReplayChunks';

const ROW_HEIGHT_PX = 44;

interface Props {
  replay: ReplayChunks;
  /** The session's first event time: rows show their offset from it. */
  startedAt: string | null;
  findingsBySequence: Map<number, Finding[]>;
  selected: number | null;
  onSelect(event: ReplayEvent): void;
}

export function ReplayTimeline({ replay, startedAt, findingsBySequence, selected, onSelect }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: replay.total, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT_PX, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const { want } = replay;
  useEffect(() => want(first, last), [want, first, last]);
  const start = startedAt ? new Date(startedAt).getTime() : null;

  return (
    <>
      {replay.error && <ErrorState error={replay.error} retry={() => replay.want(first, last)} />}
      <div ref={scroller} className="replay-list" data-testid="replay-list" tabIndex={0} aria-label={`Events of the session, ${replay.total.toLocaleString('en-US')} in all`}>
        <div role="list" className="replay-sizer" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const event = replay.eventAt(item.index);
            const style = { height: ROW_HEIGHT_PX, transform: `translateY(${item.start}px)` };
            if (!event)
              return (
                <div key={item.key} role="listitem" className="replay-row replay-placeholder" style={style} data-testid="replay-placeholder">
                  <span className="muted">Loading…</span>
                </div>
              );
            const findings = findingsBySequence.get(event.sequence);
            const offsetMs = start === null ? null : new Date(event.timestamp).getTime() - start;
            return (
              <div key={item.key} role="listitem" className="replay-row" style={style} data-testid="replay-event" data-sequence={event.sequence}>
                <button type="button" className={selected === event.sequence ? 'replay-event selected' : 'replay-event'} aria-pressed={selected === event.sequence} onClick={() => onSelect(event)}>
                  <span className="replay-seq mono">#{event.sequence}</span>
                  <span className={`event-type event-${event.type}`}>{event.type}</span>
                  <span className="replay-offset mono" title={new Date(event.timestamp).toLocaleString()}>
                    {offsetMs === null ? '' : `+${formatDuration(Math.max(0, offsetMs))}`}
                  </span>
                  <span className="replay-summary">{eventSummary(event)}</span>
                  {event.cost_usd !== undefined && <span className="replay-cost">{formatUsd(event.cost_usd)}</span>}
                  {findings && (
                    <span className={`finding-mark finding-${findings[0].severity}`} title={findings.map((f) => `${f.rule}: ${f.evidence}`).join('\n')}>
                      {findings.map((f) => f.rule).join(', ')} −{findings.reduce((sum, f) => sum + f.penalty, 0)}
                    </span>
                  )}
                </button>
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}
