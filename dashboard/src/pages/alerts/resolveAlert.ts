// Resolving an alert in the dashboard also marks its notifications read: the person resolving it has
// seen it, so the bell should stop counting it.
import { api, query } from '../../api/client';
import { announceNotificationsChanged } from '../../components/Bell';
import type { Alert, Notification } from './types';

export async function resolveAlert(id: string): Promise<Alert> {
  const alert = await api.post<Alert>(`/v1/alerts/${encodeURIComponent(id)}/resolve`);
  const unread = await api.get<Notification[]>(`/v1/notifications${query({ unread: true, type: alert.type, limit: 100 })}`);
  await Promise.all(unread.filter((n) => n.alert_id === id).map((n) => api.post(`/v1/notifications/${encodeURIComponent(n.id)}/read`)));
  announceNotificationsChanged();
  return alert;
}
