// /sandboxes: every sandbox of the account, virtualised so a thousand rows keep scrolling smoothly (only
// the rows in view are in the DOM), refreshed every 20 s.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { Link } from 'react-router';
import { formatUsd, TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Empty, ErrorState, Loading } from '../../components/states';
import { resources } from './format';
import type { SandboxListItem } from './types';
import { useAllSandboxes } from './useAllSandboxes';
import './sandboxes.css';

const ROW_HEIGHT = 44;

export default function SandboxListPage() {
  const state = useAllSandboxes(20_000);
  const sandboxes = state.data;
  return (
    <>
      <PageTitle title="Sandboxes">
        <Link className="button primary" to="/sandboxes/new">
          New sandbox
        </Link>
      </PageTitle>
      {state.error && <ErrorState error={state.error} retry={() => void state.reload()} />}
      {sandboxes === undefined ? (
        !state.error && <Loading />
      ) : sandboxes.length === 0 ? (
        <Empty>
          <p>No sandboxes yet.</p>
          <Link to="/sandboxes/new">Create your first sandbox</Link>
        </Empty>
      ) : (
        <>
          <p className="muted" aria-live="polite">
            {sandboxes.length} sandbox{sandboxes.length === 1 ? '' : 'es'}
            {state.complete ? '' : ' so far, loading more…'}
          </p>
          <SandboxTable sandboxes={sandboxes} />
        </>
      )}
    </>
  );
}

function SandboxTable({ sandboxes }: { sandboxes: SandboxListItem[] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: sandboxes.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    getItemKey: (index) => sandboxes[index].id,
  });
  return (
    <div className="sbx-list" ref={scroller} data-testid="sandbox-list" tabIndex={0} role="region" aria-label="Sandbox list">
      <div className="sbx-list-inner">
        <div className="sbx-row sbx-head" aria-hidden="true">
          <span>Sandbox</span>
          <span>Status</span>
          <span>Template</span>
          <span>Resources</span>
          <span>Spend / budget</span>
          <span>Created</span>
        </div>
        <ul className="sbx-rows" style={{ height: virtualizer.getTotalSize() }} aria-label={`${sandboxes.length} sandboxes`}>
          {virtualizer.getVirtualItems().map((item) => {
            const sandbox = sandboxes[item.index];
            return (
              <li key={item.key} className="sbx-row" data-testid="sandbox-row" style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}>
                <span className="mono">
                  <Link to={`/sandboxes/${sandbox.id}`}>{sandbox.id}</Link>
                </span>
                <span>
                  <span className={`status status-${sandbox.status}`}>{sandbox.status}</span>
                </span>
                <span>{sandbox.template}</span>
                <span>{resources(sandbox)}</span>
                <span>{sandbox.budget === null ? formatUsd(sandbox.spend_usd) : `${formatUsd(sandbox.spend_usd)} of ${formatUsd(sandbox.budget)}`}</span>
                <span>
                  <TimeAgo iso={sandbox.created_at} />
                </span>
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}
