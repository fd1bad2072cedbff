// /alerts/notifications: the in-app inbox (one notification per raised alert), read or unread, with
// "mark read" per notification and "mark all read".
import { useState } from 'react';
import { api, query } from '../../api/client';
import { announceNotificationsChanged } from '../../components/Bell';
import { TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { AlertTabs } from './AlertTabs';
import { listWithTotal } from './listWithTotal';
import type { Notification } from './types';
import './alerts.css';

const PAGE_SIZE = 25;

export default function NotificationsPage() {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [offset, setOffset] = useState(0);
  const [failure, setFailure] = useState<string | null>(null);
  const list = useApi((signal) => listWithTotal<Notification>(`/v1/notifications${query({ unread: unreadOnly ? true : undefined, limit: PAGE_SIZE, offset })}`, signal), [unreadOnly, offset], {
    pollMs: 20_000,
  });

  async function change(action: () => Promise<unknown>) {
    setFailure(null);
    try {
      await action();
      announceNotificationsChanged();
      await list.reload();
    } catch (caught) {
      setFailure((caught as Error).message);
    }
  }

  return (
    <>
      <PageTitle title="Notifications">
        <button type="button" onClick={() => void change(() => api.post('/v1/notifications/read-all'))}>
          Mark all read
        </button>
      </PageTitle>
      <AlertTabs />
      <div className="segmented" role="group" aria-label="Show">
        {[
          [false, 'All'],
          [true, 'Unread'],
        ].map(([value, label]) => (
          <button
            key={String(label)}
            type="button"
            aria-pressed={unreadOnly === value}
            onClick={() => {
              setUnreadOnly(value as boolean);
              setOffset(0);
            }}
          >
            {label}
          </button>
        ))}
      </div>
      {failure && (
        <p className="form-error" role="alert">
          {failure}
        </p>
      )}
      <Loaded state={list} isEmpty={(page) => page.rows.length === 0} empty={<p>{unreadOnly ? 'Nothing unread.' : 'No notifications yet. Every raised alert creates one.'}</p>}>
        {({ rows, total }) => (
          <>
            <ul className="notifications">
              {rows.map((notification) => (
                <li key={notification.id} className={notification.read ? 'notification' : 'notification unread'} data-testid="notification">
                  <div className="notification-head">
                    <span className={`severity severity-${notification.severity}`}>{notification.severity}</span>
                    <strong>{notification.title}</strong>
                    {!notification.read && <span className="unread-dot">unread</span>}
                    <span className="muted notification-time">
                      <TimeAgo iso={notification.created_at} />
                    </span>
                  </div>
                  <p>{notification.message}</p>
                  {!notification.read && (
                    <button type="button" onClick={() => void change(() => api.post(`/v1/notifications/${encodeURIComponent(notification.id)}/read`))} aria-label={`Mark read: ${notification.title}`}>
                      Mark read
                    </button>
                  )}
                </li>
              ))}
            </ul>
            <div className="pager">
              <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                Newer
              </button>
              <button type="button" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
                Older
              </button>
            </div>
          </>
        )}
      </Loaded>
    </>
  );
}
