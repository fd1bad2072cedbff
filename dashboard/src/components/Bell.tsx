// The notification bell on every page: the unread count, re-read every 30 s (one request a minute
// would be enough for the rate limit; two keep it feeling live), and at once when a page changed what is
// unread (announceNotificationsChanged).
import { useEffect } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import { useApi } from '../hooks/useApi';

const CHANGED = 'paddock:notifications-changed';

/** Pages that mark notifications read (or resolve alerts) call this so the bell re-reads its count now. */
export function announceNotificationsChanged(): void {
  window.dispatchEvent(new Event(CHANGED));
}

export function Bell() {
  const unread = useApi((signal) => api.get<{ count: number }>('/v1/notifications/unread-count', signal), [], { pollMs: 30_000 });
  const { reload } = unread;
  useEffect(() => {
    const onChange = () => void reload();
    window.addEventListener(CHANGED, onChange);
    return () => window.removeEventListener(CHANGED, onChange);
  }, [reload]);
  const count = unread.data?.count ?? 0;
  return (
    <Link to="/alerts" className="bell" aria-label={`Notifications: ${count} unread`} data-testid="bell">
      <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="currentColor">
        <path d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z" />
      </svg>
      {count > 0 && <span className="badge">{count > 99 ? '99+' : count}</span>}
    </Link>
  );
}
