// The three states every page shows besides its content: loading, empty and error.
import type { ReactNode } from 'react';
import type { ApiState } from '../hooks/useApi';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}

export function ErrorState({ error, retry }: { error: Error; retry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <p>{error.message}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/**
 * Renders `children(data)` once loaded; the loading state before, the error state on failure (kept
 * beside stale data when a refresh fails), and `empty` when `isEmpty(data)`.
 */
export function Loaded<T>({ state, children, empty, isEmpty }: { state: ApiState<T>; children: (data: T) => ReactNode; empty?: ReactNode; isEmpty?: (data: T) => boolean }) {
  if (state.data === undefined) {
    if (state.error) return <ErrorState error={state.error} retry={() => void state.reload()} />;
    return <Loading />;
  }
  const emptyNow = empty !== undefined && (isEmpty ? isEmpty(state.data) : Array.isArray(state.data) && state.data.length === 0);
  return (
    <>
      {state.error && <ErrorState error={state.error} retry={() => void state.reload()} />}
      {emptyNow ? <Empty>{empty}</Empty> : children(state.data)}
    </>
  );
}
